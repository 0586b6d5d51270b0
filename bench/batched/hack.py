import re, sys
# hack.py MODE IN.cu OUT.cu: timing experiments on a parmc output (wrong results on purpose)
mode, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
s = open(src).read()
if 'nosel' in mode:
    s = re.sub(r'const int sw = pb \^ [01];', 'const int sw = 0;', s)
if 'nosmem' in mode:
    parts = s.split('    { /* round:')
    n = len(parts) - 1
    out = [parts[0]]
    for r in range(1, n + 1):
        p = parts[r]
        lines = p.split('\n')
        keep = []
        for l in lines:
            if r > 1 and re.match(r'\s+v0_\d+ = tile0\[base', l): continue
            if r < n and re.match(r'\s+tile0\[base [\^+] 0x[0-9a-f]+u\] = v0_', l): continue
            keep.append(l)
        out.append('\n'.join(keep))
    s = '    { /* round:'.join(out)
open(dst, 'w').write(s)
