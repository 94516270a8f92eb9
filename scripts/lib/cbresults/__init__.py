"""Shared helpers of the commbench results pipeline (scripts/reproduce, plot, report,
regress and the external baselines): the CSV schema, size formatting, launching MPI
jobs and picking rows. Standard library only; matplotlib is imported by plot alone."""
