# A/B of two parmc builds (build/parmc_lb1, build/parmc_lb2) on the 2^24 sort and the batched example, twice each, in one run.
set -e
W=$(mktemp -d)
grep -v '^entry ' examples/sort.parm > $W/s24.parm; echo 'entry main (xs : [2^24]i32) = sort 24 xs' >> $W/s24.parm
for v in lb1 lb2; do
  build/parmc_$v --prefix bench $W/s24.parm -o $W/s24_$v.cu
  build/parmc_$v --prefix bench examples/batched.parm -o $W/b_$v.cu
  (nvcc -O3 -arch=sm_90 -include $W/s24_$v.h bench/sort/sortbench.cu $W/s24_$v.cu -o $W/sb_s24_$v) &
  (nvcc -O3 -arch=sm_90 -include $W/b_$v.h bench/sort/sortbench.cu $W/b_$v.cu -o $W/sb_b_$v) &
done
wait
nvidia-smi --query-gpu=name --format=csv,noheader
for v in lb1 lb2 lb1 lb2; do echo "== $v"; $W/sb_s24_$v full 24 | grep -E "check|merge|radix|parmc|copy"; $W/sb_b_$v rows 26 10 | grep -E "check|Segmented|parmc"; done
