# Stops the CMake configuration (an error in a benchmark's own bench.cmake).
message(FATAL_ERROR "h_cmakefail: this bench.cmake stops the configuration")
