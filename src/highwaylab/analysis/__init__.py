"""Analysis of depth: gate statistics, gradient-norm probe, lesioning, and their plots."""
