// How many CPUs this process may run on: its affinity mask (sched_getaffinity), which a batch system (Slurm's
// --cpus-per-task, taskset, a container's cpuset) narrows below the machine's core count. The default number
// of worker processes of a study.
#pragma once

namespace stasim {

int available_cpus();  // at least 1

}  // namespace stasim
