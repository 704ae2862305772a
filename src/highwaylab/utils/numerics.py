"""Floating-point mode of the CPU: flush subnormal (denormal) numbers to zero.

A deep net whose signals vanish (a plain stack at depth 100 or more, a highway stack whose carry
path is closed) carries gradients (and possibly activations) below 1.2e-38, float32's smallest
normal number, on their way to exact zeros. x86 CPUs compute on such subnormal numbers through a
slow path: a training step of a 100-layer plain ReLU or sigmoid stack (width 50, batch 128, one
thread), whose parameter gradients are 7-17% subnormal, takes 34 ms instead of 12 ms with flushing
(``benchmarks/denormals.py``); highway stacks, whose gradients stay normal, are not affected.
Flushing them to zero (the SSE flags FTZ and DAZ) changes values below 1.2e-38 only, which are zero
for any purpose of training. GPUs are not affected: this sets the CPU's mode only.
"""

from __future__ import annotations

import logging

import torch

log = logging.getLogger(__name__)

SUBNORMAL_BITS = 0x00400000  # the float32 2^-127 ~ 5.9e-39, a subnormal number


def configure_denormals(flush: bool) -> bool:
    """Flush subnormal float32/float64 results and inputs to zero on the CPU (``flush=True``), or
    compute with them exactly (``False``, IEEE 754 and PyTorch's default).

    ``torch.set_flush_denormal`` sets the mode of the calling thread; a thread starts with the mode
    of the thread that starts it. PyTorch starts its OpenMP worker threads at the first parallel
    operation, so call this before that (``build()`` does, before anything is built): the workers
    then follow. Worker threads already running keep their mode; :func:`flushes_denormals` tells,
    and a warning is logged when they disagree.

    Returns:
        Whether this CPU supports flushing (x86 with SSE3: ``torch.set_flush_denormal``'s answer);
        where it does not, nothing changes.
    """
    supported = bool(torch.set_flush_denormal(flush))
    if supported and flushes_denormals() != flush:
        log.warning(f"flush_denormal={flush}: PyTorch's CPU worker threads started before it was set and "
                    "keep their mode; set it at the start of the process")
    return supported


def flushes_denormals() -> bool:
    """Whether an elementwise operation flushes a subnormal float32 to zero in every CPU thread
    PyTorch uses: ``2^-127 * 1`` over a tensor large enough to be split over all intra-op threads."""
    n = max(1, torch.get_num_threads()) * 2**16  # above PyTorch's grain size (32,768) per thread
    subnormal = torch.full((n,), SUBNORMAL_BITS, dtype=torch.int32).view(torch.float32)  # no arithmetic
    return not bool((subnormal * 1.0).view(torch.int32).any())  # int view: compares the bits, not floats
