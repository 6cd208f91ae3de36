# ptm - one Makefile. Targets: all check demo bench bench-ssp bench-peers golden fuzz fuzz-plan
#   fuzz-data fuzz-trace asan tsan install uninstall clean.
#   make SANITIZE=address,undefined check   the suite under sanitizers
#   make fuzz FUZZ_SECONDS=600              the parser fuzzer (clang)
#   make fuzz-data FUZZ_SECONDS=300         the data reader fuzzer, that long per format

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CFLAGS  ?= -O2 -g
SANITIZE ?=
# compile jobs of make check and make demo: one a core
JOBS    ?= $(shell nproc 2>/dev/null || echo 1)

WARN     = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
GENWARN  = -std=c11 -Wall -Wno-unused-function -Wno-sign-compare -Wno-unused-parameter
PKGS     = lua5.4 yaml-0.1 zlib jansson
PKG_CFLAGS := $(if $(PKGS),$(shell pkg-config --cflags $(PKGS)))
PKG_LIBS   := $(if $(PKGS),$(shell pkg-config --libs $(PKGS)))
# Open MPI, when its development files are there: `ptm run` under mpirun
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

ifeq ($(SANITIZE),)
B = build/default
else
B = build/$(subst $(comma),-,$(SANITIZE))
SANFLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
comma := ,

# Every source folder is an include folder: a header is named by its file name.
SRC_DIRS = lang compiler compiler/plan $(sort $(dir $(wildcard runtime/*/*.c runtime/*/*.h \
	runtime/models/*/*.c runtime/models/*/*.h))) schedulers viz
INCS     = $(addprefix -I,$(patsubst %/,%,$(SRC_DIRS)))
CPPFLAGS += -D_POSIX_C_SOURCE=200809L $(INCS) -I$(B)/gen $(PKG_CFLAGS)
ALL_CFLAGS = $(CFLAGS) $(SANFLAGS) -pthread -MMD -MP
LDLIBS  += $(PKG_LIBS) -lm
ifneq ($(MPI_LIBS),)
CPPFLAGS += -DPTM_HAVE_MPI $(MPI_CFLAGS)
LDLIBS   += $(MPI_LIBS)
endif

LANG_SRC = lang/arena.c lang/diag.c lang/ast.c lang/ptm.c
# The compiler checks built-in kernels against each model's table of them.
BUILTINS_SRC = $(wildcard runtime/models/*/builtins_*.c)
COMPILER_SRC = compiler/prog.c compiler/builtins.c compiler/sem.c compiler/sem_expr.c compiler/sem_outputs.c \
	compiler/hook_check.c compiler/plan/plan.c compiler/plan/plan_yaml.c $(BUILTINS_SRC)
# The runtime: one folder a subsystem; a model is a folder of runtime/models/.
ENGINE_SRC = $(filter-out runtime/engine/dryrun.c runtime/engine/dryrun_clocks.c,$(wildcard runtime/engine/*.c))
DATA_SRC   = $(wildcard runtime/data/*.c)
# The data sets and their readers alone (the benches and the data fuzzer).
READ_SRC   = $(filter-out runtime/data/data_ranks.c,$(DATA_SRC))
LUA_SRC    = $(wildcard runtime/lua/*.c)
MODELS_SRC = $(filter-out $(BUILTINS_SRC),$(wildcard runtime/models/*.c runtime/models/*/*.c))
RUNTIME_SRC = $(wildcard runtime/base/*.c) $(DATA_SRC) runtime/pstore/pstore.c $(LUA_SRC) \
	compiler/plan/plan_load.c $(ENGINE_SRC) $(MODELS_SRC) $(wildcard schedulers/*.c)
# ptm plan: the dry run and the renderers of schedules
VIZ_SRC  = runtime/engine/dryrun.c runtime/engine/dryrun_clocks.c $(wildcard viz/*.c)
GEN_SRC  = $(B)/gen/parser.c $(B)/gen/lexer.c
LIB_OBJ  = $(LANG_SRC:%.c=$(B)/%.o) $(COMPILER_SRC:%.c=$(B)/%.o) $(RUNTIME_SRC:%.c=$(B)/%.o) \
	$(VIZ_SRC:%.c=$(B)/%.o) $(B)/gen/parser.o $(B)/gen/lexer.o
CLI_OBJ  = $(B)/cli/ptm.o $(B)/cli/plan.o $(B)/cli/predict.o $(B)/cli/report.o
# The unit test programs, the slowest first: make test runs JOBS at a time.
TESTS    = $(B)/tests/test_models $(B)/tests/test_mf $(B)/tests/test_lda $(B)/tests/test_logreg $(B)/tests/test_logreg_cd $(B)/tests/test_data \
	$(B)/tests/test_sched $(B)/tests/test_lasso $(B)/tests/test_sem $(B)/tests/test_lua $(B)/tests/test_lang $(B)/tests/test_gen $(B)/tests/test_engine \
	$(B)/tests/test_plan $(B)/tests/test_prog $(B)/tests/test_viz $(B)/tests/test_pstore $(B)/tests/test_ckpt_rules $(B)/tests/test_expr_env \
	$(B)/tests/test_xsum
TESTS   += $(B)/tests/test_report

ifeq ($(SANITIZE),)
PTM = bin/ptm
else
PTM = $(B)/ptm
endif

.PHONY: all check test demo bench bench-ssp bench-peers bench-lda-warp golden fuzz fuzz-build fuzz-plan fuzz-plan-build fuzz-data \
	fuzz-trace fuzz-trace-build \
	fuzz-data-build asan tsan install \
	uninstall clean deps
.DELETE_ON_ERROR:
.SECONDARY:

all: $(PTM)

deps:
	@scripts/deps.sh

LIB = $(B)/libptm.a
$(LIB): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(PTM): $(CLI_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# one bison run makes both (a grouped target)
$(B)/gen/parser.c $(B)/gen/parser.h &: lang/parser.y
	@mkdir -p $(B)/gen
	bison -Wall -Werror -o $(B)/gen/parser.c --header=$(B)/gen/parser.h $<

$(B)/gen/lexer.c: lang/lexer.l
	@mkdir -p $(B)/gen
	flex -o $@ $<

$(B)/gen/%.o: $(B)/gen/%.c $(B)/gen/parser.h
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(GENWARN) -c -o $@ $<

$(B)/%.o: %.c $(B)/gen/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -c -o $@ $<

$(B)/tests/%.o: tests/%.c $(B)/gen/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CHECK_CFLAGS) $(ALL_CFLAGS) $(WARN) -c -o $@ $<

$(B)/tests/test_%: $(B)/tests/test_%.o $(B)/tests/testutil.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# check: install what is missing, build, run every test.
check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) $(PTM) $(TESTS)
	@$(MAKE) --no-print-directory test

test: $(PTM) $(TESTS)
	@sh tests/units.sh $(JOBS) $(TESTS)
	@echo "== tests/cli.sh"; PTM=$(PTM) sh tests/cli.sh
	@echo "== tests/ckpt.sh"; PTM=$(PTM) sh tests/ckpt.sh
	@echo "== tests/model.sh"; SANITIZE=$(SANITIZE) sh tests/model.sh

# golden: rewrite tests/golden/*.yaml from the examples, for review with git diff.
golden: $(PTM)
	@for f in examples/*/*.ptm; do n=$$(basename $$f .ptm); \
	  $(PTM) compile $$f -o tests/golden/$$n.yaml && echo "wrote tests/golden/$$n.yaml"; done

asan:
	$(MAKE) check SANITIZE=address,undefined

tsan:
	$(MAKE) check SANITIZE=thread

demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@sh scripts/demo.sh $(PTM)

# bench: results go to bench/RESULTS.md with the commands that made them.
bench: deps
	@$(MAKE) --no-print-directory all $(B)/bench/prog_bench $(B)/bench/pstore_bench \
	  $(B)/bench/data_gen $(B)/bench/data_bench $(B)/bench/lasso_bench $(B)/bench/lua_bench \
	  $(B)/bench/split_bench $(B)/bench/lda_bench $(B)/bench/sched_bench $(B)/bench/mf_bench $(B)/bench/logreg_bench
	@DATA_GEN=$(B)/bench/data_gen DATA_BENCH=$(B)/bench/data_bench LUA_BENCH=$(B)/bench/lua_bench \
	  LASSO_BENCH=$(B)/bench/lasso_bench SPLIT_BENCH=$(B)/bench/split_bench SCHED_BENCH=$(B)/bench/sched_bench bash bench/run.sh $(PTM) $(B)/bench/prog_bench $(B)/bench/pstore_bench

# bench-ssp: SSP against BSP with a straggler alone (bench/ssp_bench.sh): its
# section of bench/RESULTS.md replaced, its charts (bench/ssp_bench_*.svg) redrawn.
bench-ssp: deps
	@$(MAKE) --no-print-directory all
	@bash bench/ssp_bench.sh --update bench/RESULTS.md $(PTM) bench

# bench-peers: only the peers section of bench/RESULTS.md (scikit-learn, glmnet,
# liblinear, gensim beside ptm; bench/peers.sh installs them when missing).
bench-peers: deps
	@$(MAKE) --no-print-directory all
	@bash bench/peers.sh $(PTM)

# bench-lda-warp: LDA time to quality against WarpLDA (bench/lda_warp.sh; PTM_WARPLDA
# names WarpLDA's binary, else its runs print SKIP lines); prints, RESULTS.md is by hand.
bench-lda-warp: deps
	@$(MAKE) --no-print-directory all
	@bash bench/lda_warp.sh $(PTM)

# The interpreter at -O2 whatever CFLAGS says.
$(B)/bench/prog_bench: bench/prog_bench.c compiler/prog.c lang/arena.c lang/ptm.c compiler/prog.h \
	  bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $(filter %.c,$^) -lm

# The parameter store at -O2 whatever CFLAGS says.
$(B)/bench/pstore_bench: bench/pstore_bench.c runtime/pstore/pstore.c lang/arena.c lang/ptm.c \
	  runtime/pstore/pstore.h bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $(filter %.c,$^) -lm

# The data readers at -O2 whatever CFLAGS says, and their input generator.
$(B)/bench/data_bench: bench/data_bench.c $(READ_SRC) compiler/plan/plan.c compiler/prog.c \
	  lang/arena.c lang/ptm.c runtime/data/data.h runtime/data/data_impl.h bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $(filter %.c,$^) -lm
$(B)/bench/data_gen: bench/data_gen.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $^ -lm

# The Lasso kernel at -O2 whatever CFLAGS says.
$(B)/bench/lasso_bench: bench/lasso_bench.c runtime/models/lasso/kernel_lasso.c $(READ_SRC) compiler/plan/plan.c \
	  compiler/prog.c lang/arena.c lang/ptm.c runtime/models/lasso/kernel_lasso.h runtime/data/data.h \
	  bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $(filter %.c,$^) -lm

# The Lasso sweep on one thread and on two, without the engine.
$(B)/bench/split_bench: bench/split_bench.c runtime/models/lasso/kernel_lasso.c $(READ_SRC) compiler/plan/plan.c \
	  compiler/prog.c lang/arena.c lang/ptm.c runtime/models/lasso/kernel_lasso.h runtime/data/data.h \
	  bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $(filter %.c,$^) -lm

# The matrix factorization and logistic regression kernels at -O2 whatever CFLAGS says.
$(B)/bench/mf_bench: bench/mf_bench.c runtime/models/mf/kernel_mf.c $(READ_SRC) compiler/plan/plan.c \
	  compiler/prog.c lang/arena.c lang/ptm.c runtime/models/mf/kernel_mf.h runtime/data/data.h runtime/base/rng.h \
	  bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $(filter %.c,$^) -lm
$(B)/bench/logreg_bench: bench/logreg_bench.c runtime/models/logreg/kernel_logreg.c $(READ_SRC) compiler/plan/plan.c \
	  compiler/prog.c lang/arena.c lang/ptm.c runtime/models/logreg/kernel_logreg.h runtime/data/data.h \
	  bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $(filter %.c,$^) -lm

# The LDA kernel at -O2 whatever CFLAGS says.
$(B)/bench/lda_bench: bench/lda_bench.c runtime/models/lda/kernel_lda.c runtime/base/ckpt.c $(READ_SRC) compiler/plan/plan.c \
	  compiler/prog.c lang/arena.c lang/ptm.c runtime/models/lda/kernel_lda.h runtime/data/data.h runtime/base/rng.h \
	  bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $(filter %.c,$^) -lz -lm

# The schedulers, on the library (built with CFLAGS, -O2 by default).
$(B)/bench/sched_bench: bench/sched_bench.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -o $@ $^ $(LDLIBS)

# The Lua host and the sandbox at -O2 whatever CFLAGS says.
$(B)/bench/lua_bench: bench/lua_bench.c $(filter-out runtime/lua/rule_lua.c runtime/lua/predict_lua.c,$(LUA_SRC)) lang/arena.c \
	  lang/ptm.c lang/diag.c runtime/lua/lua_host.h runtime/lua/lua_host_impl.h runtime/lua/lua_sandbox.h \
	  bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(WARN) -O2 -o $@ $(filter %.c,$^) $(PKG_LIBS) -lm

# fuzz: libFuzzer over the parser, seeded from examples/ (needs clang).
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_B = build/fuzz
FUZZ_SRC = $(LANG_SRC) $(COMPILER_SRC) runtime/lua/lua_sandbox.c $(FUZZ_B)/gen/parser.c $(FUZZ_B)/gen/lexer.c

$(FUZZ_B)/gen/parser.c $(FUZZ_B)/gen/parser.h &: lang/parser.y
	@mkdir -p $(FUZZ_B)/gen
	bison -Wall -Werror -o $(FUZZ_B)/gen/parser.c --header=$(FUZZ_B)/gen/parser.h $<
$(FUZZ_B)/gen/lexer.c: lang/lexer.l
	@mkdir -p $(FUZZ_B)/gen
	flex -o $@ $<
$(FUZZ_B)/fuzz_parse: tests/fuzz_parse.c $(FUZZ_SRC) $(FUZZ_B)/gen/parser.h lang/*.h compiler/*.h compiler/plan/*.h
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -D_POSIX_C_SOURCE=200809L $(INCS) -I$(FUZZ_B)/gen $(PKG_CFLAGS) \
	  -o $@ tests/fuzz_parse.c $(FUZZ_SRC) $(PKG_LIBS) -lm

fuzz-build: $(FUZZ_B)/fuzz_parse

fuzz:
	@scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory fuzz-build
	@mkdir -p $(FUZZ_B)/corpus
	cp examples/*/*.ptm tests/fuzz/parse/* $(FUZZ_B)/corpus/ 2>/dev/null || true
	$(FUZZ_B)/fuzz_parse -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  -dict=tests/fuzz/ptm.dict -artifact_prefix=$(FUZZ_B)/ $(FUZZ_B)/corpus

# fuzz-plan: libFuzzer over the plan loader and writer, seeded with the
# emitted example plans (tests/golden) and the findings kept in tests/fuzz/plan.
$(FUZZ_B)/fuzz_plan: tests/fuzz_plan.c $(FUZZ_SRC) compiler/plan/plan_load.c $(FUZZ_B)/gen/parser.h \
	  lang/*.h compiler/*.h compiler/plan/*.h compiler/plan/plan_load.h
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -D_POSIX_C_SOURCE=200809L $(INCS) -I$(FUZZ_B)/gen $(PKG_CFLAGS) \
	  -o $@ tests/fuzz_plan.c $(FUZZ_SRC) compiler/plan/plan_load.c $(PKG_LIBS) -lm

fuzz-plan-build: $(FUZZ_B)/fuzz_plan

fuzz-plan:
	@scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory fuzz-plan-build
	@mkdir -p $(FUZZ_B)/corpus-plan
	cp tests/golden/*.yaml tests/fuzz/plan/* $(FUZZ_B)/corpus-plan/ 2>/dev/null || true
	$(FUZZ_B)/fuzz_plan -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
	  -dict=tests/fuzz/plan.dict -artifact_prefix=$(FUZZ_B)/plan- $(FUZZ_B)/corpus-plan

# fuzz-data: libFuzzer over the data readers, FUZZ_SECONDS for each format,
# seeded with tests/fuzz/data/FORMAT (findings are kept there too).
DATA_FORMATS = libsvm mm uci csv
$(FUZZ_B)/fuzz_data: tests/fuzz_data.c $(READ_SRC) lang/arena.c lang/ptm.c runtime/data/data.h \
	  runtime/data/data_impl.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -D_POSIX_C_SOURCE=200809L $(INCS) \
	  -o $@ tests/fuzz_data.c $(READ_SRC) lang/arena.c lang/ptm.c -lm

fuzz-data-build: $(FUZZ_B)/fuzz_data

fuzz-data:
	@scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory fuzz-data-build
	@for f in $(DATA_FORMATS); do \
	  mkdir -p $(FUZZ_B)/corpus-data-$$f; \
	  cp tests/fuzz/data/$$f/* $(FUZZ_B)/corpus-data-$$f/ 2>/dev/null || true; \
	  echo "== fuzz-data $$f"; \
	  PTM_FUZZ_FORMAT=$$f $(FUZZ_B)/fuzz_data -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -dict=tests/fuzz/data.dict -artifact_prefix=$(FUZZ_B)/data-$$f- \
	    $(FUZZ_B)/corpus-data-$$f || exit 1; \
	done

# fuzz-trace: libFuzzer over the reader of run traces and the renderers
# (ptm plan), seeded with tests/fuzz/trace.
$(FUZZ_B)/fuzz_trace: tests/fuzz_trace.c $(FUZZ_SRC) $(RUNTIME_SRC) $(VIZ_SRC) $(FUZZ_B)/gen/parser.h \
	  viz/viz.h runtime/engine/dryrun.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -D_POSIX_C_SOURCE=200809L $(INCS) $(PKG_CFLAGS) \
	  -o $@ tests/fuzz_trace.c $(sort $(FUZZ_SRC) $(RUNTIME_SRC) $(VIZ_SRC)) $(PKG_LIBS) -lm

fuzz-trace-build: $(FUZZ_B)/fuzz_trace

fuzz-trace:
	@scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory fuzz-trace-build
	@mkdir -p $(FUZZ_B)/corpus-trace
	cp tests/fuzz/trace/* $(FUZZ_B)/corpus-trace/ 2>/dev/null || true
	$(FUZZ_B)/fuzz_trace -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  -artifact_prefix=$(FUZZ_B)/trace- $(FUZZ_B)/corpus-trace

install: $(PTM)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(PTM) $(DESTDIR)$(PREFIX)/bin/ptm

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ptm

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
