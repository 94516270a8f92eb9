"""The test registry (CTest's own list plus the gtest cases of the in-process suites) read
as data, and the reliability summary table of tests/README.md rendered from it."""
