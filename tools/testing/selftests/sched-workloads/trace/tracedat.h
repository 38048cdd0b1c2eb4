/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace.dat format, version 7 (trace-cmd.dat.v7(5)): what the writer
 * (trace/tracedat_write.c) puts in a file and the reader
 * (trace/tracedat_read.c) looks for, defined once.
 */
#ifndef SW_TRACEDAT_H
#define SW_TRACEDAT_H

#define TRACEDAT_MAGIC		"\027\010\104tracing"
#define TRACEDAT_VERSION	"7"

/* Section ids; flags of a section. */
#define TRACEDAT_SEC_OPTIONS	0
#define TRACEDAT_SEC_COMPRESSED	1	/* flag: the section is compressed */
#define TRACEDAT_SEC_STRINGS	15

/* Option ids of an options section. */
#define TRACEDAT_OPT_DONE		0
#define TRACEDAT_OPT_DATE		1
#define TRACEDAT_OPT_CPUSTAT		2
#define TRACEDAT_OPT_BUFFER		3	/* also a flyrecord section's id */
#define TRACEDAT_OPT_TRACECLOCK		4
#define TRACEDAT_OPT_UNAME		5
#define TRACEDAT_OPT_OFFSET		7
#define TRACEDAT_OPT_CPUCOUNT		8
#define TRACEDAT_OPT_TIME_SHIFT		12
#define TRACEDAT_OPT_TSC2NSEC		14
#define TRACEDAT_OPT_HEADER_INFO	16
#define TRACEDAT_OPT_EVENT_FORMATS	18
#define TRACEDAT_OPT_CMDLINES		21

#endif /* SW_TRACEDAT_H */
