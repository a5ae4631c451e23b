"""Isolation: everything that confines untrusted code and talks to the processes running it.

A submission's code runs only in a worker process (:mod:`.worker`), forked from
a clean zygote (:mod:`.zygote`, started by :mod:`.launcher`) and confined before it loads the submission
(:mod:`.sandbox`). The grading process holds a :class:`.process.WorkerProcess`
per world, speaks JSON to it (:mod:`.protocol`, :mod:`.frames`) and checks every answer for
delegation to torch.nn (:mod:`.tamper`) before anything else reads it.

Runs in the zygote and the worker: :mod:`.zygote`, :mod:`.worker`, :mod:`.tripwires` and the
sandbox's confinement. Only :mod:`.process` and :mod:`.launcher`, which start workers,
name the worker's module; nothing on the grading side imports it.

May import: :mod:`modlab.grading` (scenarios, observations), :mod:`modlab.records`
(the failure vocabulary), :mod:`modlab.course`. Never the engine or anything above it.
"""
