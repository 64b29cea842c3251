# ai-training: the two commands of the README, and friends.
#   make run           install what is missing, build the study program (only it), run the
#                      bundled study (ai-training-sim) into $(OUT)
#   make test          install what is missing, build, run the whole test suite (ctest)
#   make check-intree  build and test the module inside an ns-3.37 source tree (Debian's source)
#   make check-ns3 NS3_TARBALL=/path/ns-3.48.tar.xz   the same in-tree check in any CMake-era
#                      ns-3 release (>= 3.36) from its release tarball, offline
#   make check-mpi     the same ns-3 build (with MPI): one simulation on 1 and 2 processes, same results
#   make bench-mpi     a second, release-profile ns-3 build with MPI: the study's speed-up on 2
#                      processes for k=8 and k=16 (about 25 minutes the first time)
#   make format        clang-format every C++ file;  make check-format  fail if one is not
#   make sample        regenerate the sample pcap in traces/ from the demo
#   make doc           render doc/ai-training.rst standalone to $(BUILD)/doc-html (warnings fail)
#   make bench         benchmark programs (ratios against a baseline measured in the same run;
#                      about 20 minutes: the 1024-rank all-reduce is the long one)
#   make compare-transports  a DP and an MoE training job over RC and over UET (k=8, 128
#                      ranks): one table of step time, exposed communication, tails, resends
# Work on a fresh Debian 12 machine: packages come from apt (sudo when not root).

SHELL      := /bin/bash
BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
OUT        ?= results
RUN_ARGS   ?=
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Everything the standalone build, its tests, plots, pcap and doc checks need (capinfos is in
# wireshark-common, which tshark depends on; listed for the tests that call it; protobuf for
# Chakra execution traces, zlib for gzip-compressed ones; sphinx for the doc-renders test).
PKGS := cmake g++ make python3 libns3-dev libboost-dev libgtest-dev tshark wireshark-common \
        gnuplot-nox libprotobuf-dev protobuf-compiler zlib1g-dev python3-sphinx

.PHONY: all deps configure build run test bench compare-transports bench-mpi check-intree check-ns3 check-mpi doc format check-format sample clean

all: build

deps:
	@missing=""; \
	for p in $(PKGS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "== installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || \
	    { echo "apt-get install of$$missing failed"; exit 1; }; \
	fi

# after deps (order-only): with make -j the configure step must not race the apt install
$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# only the study program and the module library: the examples and the test suite are built by
# make build / make test
run: configure
	cmake --build $(BUILD) -j $(JOBS) --target ai-training-sim
	./$(BUILD)/ai-training-sim --outputDir=$(OUT) $(RUN_ARGS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: configure
	cmake --build $(BUILD) -j $(JOBS) --target bench
	./$(BUILD)/ait-link-bench
	./$(BUILD)/ait-fabric-build-bench
	./$(BUILD)/ait-ring-bench
	./$(BUILD)/ait-ring-bench --k=4,16 --cases=module
	./$(BUILD)/ait-ring-bench --k=4,16 --cases=module --stride=pod
	./$(BUILD)/ait-ring-bench --k=4,8 --cases=module --schedulers=map,heap,mappis,pis --repeat=3
	./$(BUILD)/ait-scheduler-bench --schedulers=map,heap,mappis,pis
	./$(BUILD)/ait-allreduce-bench
	./$(BUILD)/ait-connection-setup-bench --k=8,12 --cc=Dcqcn,Hpcc,None --repeat=3
	./$(BUILD)/ait-permutation-bench --k=8
	nice ./$(BUILD)/ait-permutation-bench --k=16

check-intree:
	bash cmake/check-intree.sh

check-ns3:
	NS3_TARBALL="$(NS3_TARBALL)" bash cmake/check-ns3.sh

check-mpi:
	bash cmake/check-mpi.sh

compare-transports: configure
	cmake --build $(BUILD) -j $(JOBS) --target ai-training-sim
	bash bench/compare-transports.sh $(BUILD) $(OUT)-transports

bench-mpi:
	bash cmake/bench-mpi.sh

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

check-format:
	clang-format --dry-run -Werror $$(git ls-files '*.cc' '*.h')

sample: configure
	cmake --build $(BUILD) -j $(JOBS) --target roce-link-demo
	./$(BUILD)/roce-link-demo --outputDir=$(BUILD)/sample >/dev/null
	cp $(BUILD)/sample/roce-link-demo-0-0.pcap traces/

doc: deps
	sphinx-build -C -D root_doc=ai-training -W -q -b html doc $(BUILD)/doc-html
	@echo "doc: $(BUILD)/doc-html/ai-training.html"

clean:
	rm -rf $(BUILD)
