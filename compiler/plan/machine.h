/* machine.h: the GPU that the kernels are planned for, each hardware fact
 * named once. Nothing else in compiler/ writes these numbers
 * (tests/tools/machine_literals.py, section 12-includes); what the compiler
 * chooses within them (tile sizes, segments, threads per block, launch
 * bounds) stays with its chooser.
 *
 * The machine is an H100 (compute capability 9.0, sm_90), as the CUDA C++
 * Programming Guide gives it: "Technical Specifications per Compute
 * Capability" for the limits, and the compute capability 9.0 sections on
 * global memory (sectors and lines) and shared memory (banks). */
#ifndef PARMC_MACHINE_H
#define PARMC_MACHINE_H

/* Threads: 32 lanes to a warp; a block of at most 1024 threads; at most
 * 2048 threads and 32 blocks resident on an SM (compute capability 9.0). */
#define MACHINE_WARP_LOG 5
#define MACHINE_WARP (1 << MACHINE_WARP_LOG)
#define MACHINE_BLOCK_THREADS_LOG 10
#define MACHINE_SM_THREADS_LOG 11
#define MACHINE_SM_BLOCKS 32

/* Registers: 64K 32-bit registers per SM, shared by its resident threads. */
#define MACHINE_SM_REGISTERS 65536

/* Shared memory: 228 KB per SM, of which the system reserves 1 KB for each
 * resident block; so a block may opt in to at most 227 KB of it
 * (cudaFuncAttributeMaxDynamicSharedMemorySize), and has 48 KB without
 * opting in (statically allocated shared memory). */
#define MACHINE_SM_SHARED_BYTES (228 * 1024)
#define MACHINE_BLOCK_RESERVED_BYTES 1024
#define MACHINE_BLOCK_SHARED_BYTES (MACHINE_SM_SHARED_BYTES - MACHINE_BLOCK_RESERVED_BYTES)
#define MACHINE_STATIC_SHARED_BYTES (48 * 1024)

/* Shared memory banks: 32 banks of 4-byte words (access_model.h says how
 * the accesses of a warp are served). */
#define MACHINE_BANKS_LOG 5
#define MACHINE_BANK_WORD_LOG 2

/* Global memory: a warp access moves the 32-byte sectors that its lanes
 * touch, within 128-byte cache lines; one thread moves at most 16 bytes in
 * one access (a vector such as int4). */
#define MACHINE_SECTOR_BYTES 32
#define MACHINE_LINE_BYTES 128
#define MACHINE_VECTOR_BYTES 16

/* Constant memory: 64 KB for a module, through a cache whose working set is
 * 8 KB per SM; a warp's reads of one address are broadcast, reads of
 * different addresses take a turn each. */
#define MACHINE_CONSTANT_BYTES (64 * 1024)
#define MACHINE_CONSTANT_CACHE_BYTES (8 * 1024)

/* A grid's x dimension: at most 2^31 - 1 blocks. */
#define MACHINE_GRID_X_LOG 31

#endif
