/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtracecmd 1.3 exports these but leaves them out of its public header;
 * trace/trace_read.c needs them to size, check and rewind a trace.dat.
 */
#ifndef SW_TRACE_TRACECMD_H
#define SW_TRACE_TRACECMD_H

#include <sys/types.h>
#include <trace-cmd.h>

int tracecmd_cpus(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
off64_t tracecmd_get_cpu_file_size(struct tracecmd_input *handle, int cpu);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle,
					  int cpu);
void tracecmd_set_all_cpus_to_timestamp(struct tracecmd_input *handle,
					unsigned long long time);
/* 0 when the file's data is compressed (name and version then set) */
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle,
				     const char **name, const char **version);

#endif /* SW_TRACE_TRACECMD_H */
