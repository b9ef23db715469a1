"""How every runner is timed, in the driver and in the workers alike."""

import time


def time_calls(run, reps):
    """CPU time of the whole process (every thread, so a library that hands
    work to a thread of its own is charged for it) and wall time, per call."""
    cpu, wall = [], []
    for _ in range(reps):
        c0, w0 = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return cpu, wall
