# SPDX-License-Identifier: GPL-2.0
#
# The one description of how sched-workloads builds: its sources by
# layer, the libraries and the flags. The collection's Makefile and
# fuzz/Makefile include it; the tests' checkers ask it with
# "make -s -f build.mk print-VARIABLE" (tests/swtest.py).

SW_ROOT := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SW_LIBS := json-c libtracefs libtracecmd libtraceevent libzstd
SW_PKG_CFLAGS := $(shell pkg-config --cflags $(SW_LIBS) 2>/dev/null)
SW_PKG_LIBS := $(shell pkg-config --libs $(SW_LIBS) 2>/dev/null)
# Where things are, named once, here, where the tree's layout is known:
#   SW_TREE        the kernel tree (the collection is its
#                  tools/testing/selftests/sched-workloads)
#   SW_SOURCE_DIR  the collection's sources: the lab/ a binary built
#                  elsewhere (O=) runs; an installed one has lab/ beside it
#   SW_DESK_DIR    the desk's tools, run for report, history, vm and
#                  contribute ($SCHED_WORKLOADS_DESK overrides it)
# A guest's binary sets the last two to paths of its guest (vm_userspace.py):
# a host path would make the binary, and so the guest, the host's.
SW_TREE := $(abspath $(SW_ROOT)/../../../..)
SW_SOURCE_DIR ?= $(abspath $(SW_ROOT))
SW_DESK_DIR ?= $(SW_TREE)/tools/testing/sched-workloads
SW_CPPFLAGS := -D_GNU_SOURCE -I$(abspath $(SW_ROOT)) \
	-DSW_SOURCE_DIR='"$(SW_SOURCE_DIR)"' -DSW_DESK_DIR='"$(SW_DESK_DIR)"' \
	$(SW_PKG_CFLAGS)
SW_LDLIBS := $(SW_PKG_LIBS) -lm -pthread

# The layers, top down: a file calls its own layer or those below it
# (layers.txt, checked by "make style").
SW_LAYERS := desk cmd run judge machine trace rtapp lib
sw_srcs = $(sort $(wildcard $(addprefix $(SW_ROOT)/,$(addsuffix /*.c,$(1)))))
SW_MAIN := $(SW_ROOT)/sched-workloads.c
SW_SRCS := $(SW_MAIN) $(call sw_srcs,$(SW_LAYERS))
SW_HDRS := $(sort $(wildcard $(addprefix $(SW_ROOT)/,$(addsuffix /*.h,$(SW_LAYERS)))))
# What the trace analysis checkers of tests/ link: the analysis, on lib/.
SW_ANALYSIS_SRCS := $(call sw_srcs,trace lib)

print-%:
	@echo $($*)
