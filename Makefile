# parmc: the compiler, its tests and its examples.
#
#   make            build build/parmc (optimised), in parallel, one line a file (V=1: the commands)
#   make test       build a sanitizer build and run every test (alias: check)
#   make test SECTIONS="35-ir 50-backend"   only those sections of tests/sections
#   make demo       compile and run examples/sort.parm on random input
#   make accept     regenerate golden expectations (review the diff!)
#   make install PREFIX=DIR   parmc, the stdlib and the man page under DIR
#   make fuzz SECONDS=N   run the libFuzzer target over tests/fuzz/corpus
#   make format-check   the lines clang-format (.clang-format) would change, per file (in make test)
#   make print-build    build/parmc's translation units and flags (python/setup.py's sdist)

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN      = -std=c11 -Wall -Wextra -Werror -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS  = -D_POSIX_C_SOURCE=200809L $(addprefix -I,$(COMPILER_DIRS)) -Iruntime -Ibuild/gen
# Sanitizer and fuzzer builds also verify the IR after every stage
# (compiler/ir/ir_verify.c) and the plan after scheduling (plan_verify.c).
SANFLAGS  = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DPARMC_VERIFY

RE2C     ?= re2c
LEMON    ?= lemon
LEMPAR   ?= /usr/share/lemon/lempar.c

# compiler/'s folders, one per stage and one per target of the back end, in
# the order of compiler/stages, which says which module is in which
# (docs/internals.md, "The layout"; tests/tools/passes.py checks the order).
# Every folder is on the include path, so a file includes a header by its
# name, and an object is named by its source's name alone (build/rel/NAME.o):
# the table lists a module once, so no two folders share a file name.
COMPILER_DIRS = compiler/base compiler/front compiler/ir compiler/specialise compiler/optimiser compiler/plan \
                compiler/back compiler/back/c compiler/back/cuda compiler/driver compiler/tools
# The command line (parmc itself, `parmc test` and `parmc bench`) is linked
# into build/parmc alone: the unit tests and the fuzz target have mains of their own.
TOOL_DIRS = compiler/tools
SRCS      = $(wildcard $(addsuffix /*.c,$(filter-out $(TOOL_DIRS),$(COMPILER_DIRS))))
TOOL_SRCS = $(wildcard $(addsuffix /*.c,$(TOOL_DIRS)))
HEADERS   = $(wildcard $(addsuffix /*.h,$(COMPILER_DIRS)))
GEN_SRCS  = build/gen/lexer.c build/gen/parser.c build/gen/runtime_text.c

OBJS      = $(patsubst %.c,build/rel/%.o,$(notdir $(SRCS) $(GEN_SRCS)))
SAN_OBJS  = $(patsubst %.c,build/san/%.o,$(notdir $(SRCS) $(GEN_SRCS)))
TOOL_OBJS = $(patsubst %.c,build/rel/%.o,$(notdir $(TOOL_SRCS)))
TOOL_SAN_OBJS = $(patsubst %.c,build/san/%.o,$(notdir $(TOOL_SRCS)))

# Quiet by default: one short line per file; `make V=1` shows the commands.
ifneq ($(V),1)
Q = @
say = printf '  %-6s %s\n' $(1) $(2);
endif
# Builds run in parallel, one job per CPU, unless -j is given (a sub-make
# shares its parent's jobs).
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
endif

vpath %.c $(COMPILER_DIRS) build/gen

.PHONY: all deps deps-fuzz test check demo accept install fuzz clean format-check print-build
all: build/parmc

# The build's tools (make, cc, re2c, lemon, python3 and its venv module) are
# installed with apt-get when they are missing; clang for make fuzz only.
deps:
	@bash .ci/install-deps.sh
deps-fuzz:
	@bash .ci/install-deps.sh fuzz

build/gen/lexer.c: compiler/front/lexer.re compiler/front/lexer.h build/gen/parser.h
	@mkdir -p build/gen
	$(Q)$(call say,RE2C,$<)$(RE2C) -W -Werror --no-generation-date --no-version -o $@ $<

# lemon leaves an unchanged parser.h alone, so remove it first (make would
# otherwise rerun lemon on every build).
build/gen/parser.c build/gen/parser.h: compiler/front/parser.y
	@mkdir -p build/gen
	$(Q)$(call say,LEMON,$<)rm -f build/gen/parser.h
	$(Q)$(LEMON) -q -T$(LEMPAR) -dbuild/gen $<

# The runtime headers, embedded as strings in every emitted program.
RUNTIME = runtime/parm_ops.h runtime/parm_io.h runtime/parm_host_c.h runtime/parm_host_cuda.h runtime/parm_nccl.h \
          runtime/parm_main.h runtime/parm_main_c.h runtime/parm_main_cuda.h runtime/parm_main_nccl.h
build/gen/runtime_text.c: $(RUNTIME) compiler/back/embed.sh
	@mkdir -p build/gen
	$(Q)$(call say,EMBED,$@)sh compiler/back/embed.sh $(RUNTIME) >$@

build/rel/%.o: %.c | build/gen/parser.h
	@mkdir -p build/rel
	$(Q)$(call say,CC,$<)$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

build/san/%.o: %.c | build/gen/parser.h
	@mkdir -p build/san
	$(Q)$(call say,CC-SAN,$<)$(CC) $(CPPFLAGS) $(WARN) $(SANFLAGS) -MMD -MP -c $< -o $@

build/parmc: $(OBJS) $(TOOL_OBJS)
	$(Q)$(call say,LINK,$@)$(CC) $(CFLAGS) $^ -o $@ -lm

build/parmc-san: $(SAN_OBJS) $(TOOL_SAN_OBJS)
	$(Q)$(call say,LINK,$@)$(CC) $(SANFLAGS) $^ -o $@ -lm

build/unit/%: tests/unit/%.c tests/unit/check.h $(SAN_OBJS)
	@mkdir -p build/unit
	$(Q)$(call say,UNIT,$@)$(CC) $(CPPFLAGS) $(WARN) $(SANFLAGS) $(filter-out %.h,$^) -o $@ -lm $(UNIT_LDFLAGS)

# The driver's calls of the verifiers land in the test's wrappers.
build/unit/test_driver_verifies: UNIT_LDFLAGS = -Wl,--wrap=ir_verify_program,--wrap=plan_verify_entry
# The rules' replacements and the rewriter's checks land in the test's wrappers.
build/unit/test_rule_verifies: UNIT_LDFLAGS = -Wl,--wrap=rw_replace,--wrap=ir_verify_body

UNIT_TESTS = $(patsubst tests/unit/%.c,build/unit/%,$(wildcard tests/unit/*.c))

test: deps
	@$(MAKE) -s --no-print-directory build/parmc build/parmc-san $(UNIT_TESTS)
	@PARMC=build/parmc-san bash tests/run.sh $(SECTIONS)
check: test

demo: deps
	@$(MAKE) -s --no-print-directory build/parmc
	bash examples/demo.sh

accept: build/parmc
	PARMC=build/parmc ACCEPT=1 bash tests/run.sh

# parmc finds the stdlib at ../share/parmc/stdlib from its own directory
# (compiler/front/imports.c), so the tree under PREFIX can be moved as a whole.
PREFIX ?= /usr/local
install: build/parmc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/parmc/stdlib $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 build/parmc $(DESTDIR)$(PREFIX)/bin/parmc
	install -m 644 stdlib/*.parm $(DESTDIR)$(PREFIX)/share/parmc/stdlib
	install -m 644 docs/parmc.1 $(DESTDIR)$(PREFIX)/share/man/man1/parmc.1

clean:
	rm -rf build

# What python/setup.py's sdist carries to build parmc with a C compiler alone:
# build/parmc's translation units (the generated ones made first) and flags.
print-build: $(GEN_SRCS) build/gen/parser.h
	@echo 'sources: $(SRCS) $(GEN_SRCS) $(TOOL_SRCS)'
	@echo 'flags: $(CPPFLAGS) $(filter -std=%,$(WARN))'

# The lines of the C sources that clang-format (.clang-format) would change,
# per file; `make test` runs it too (tests/sections/13-format.sh, which fails
# when clang-format is missing; this target only says so).
format-check:
	@sh tests/tools/format_check.sh

-include $(wildcard build/rel/*.d build/san/*.d)

# ---- fuzzing (tests/fuzz, docs/robustness.md) ----
# `make fuzz SECONDS=N` fuzzes for N seconds. New inputs go to build/fuzz/corpus
# (tests/fuzz/corpus is only read), crash reproducers to build/fuzz/.
SECONDS  ?= 60
FUZZFLAGS = -O1 -g -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DPARMC_VERIFY
FUZZOPTS  = -max_len=4096 -timeout=10 -rss_limit_mb=2048 -dict=tests/fuzz/parm.dict

build/fuzz_parmc: tests/fuzz/fuzz_parmc.c $(SRCS) $(GEN_SRCS) $(HEADERS) | build/gen/parser.h
	clang $(CPPFLAGS) $(WARN) $(FUZZFLAGS) tests/fuzz/fuzz_parmc.c $(SRCS) $(GEN_SRCS) -o $@ -lm

fuzz: deps-fuzz
	@$(MAKE) -s --no-print-directory build/fuzz_parmc
	@mkdir -p build/fuzz/corpus
	build/fuzz_parmc $(FUZZOPTS) -artifact_prefix=build/fuzz/ -max_total_time=$(SECONDS) \
	    -print_final_stats=1 build/fuzz/corpus tests/fuzz/corpus
