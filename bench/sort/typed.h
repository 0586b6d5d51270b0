// typed.h: the CUB sorts of libs_typed.cu for one element type, KEY_T keys
// or (KEY_T, VAL_T) records (both given with -D when built).
#pragma once
#include <stdint.h>

#ifdef VAL_T
void typed_merge(Temp &t, const KEY_T *k, const VAL_T *v, KEY_T *ko, VAL_T *vo, int n, cudaStream_t s);
void typed_radix(Temp &t, const KEY_T *k, const VAL_T *v, KEY_T *ko, VAL_T *vo, int n, cudaStream_t s);
#else
void typed_merge(Temp &t, const KEY_T *k, KEY_T *ko, int n, cudaStream_t s);
void typed_radix(Temp &t, const KEY_T *k, KEY_T *ko, int n, cudaStream_t s);
#endif
