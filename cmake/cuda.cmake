# Optional CUDA. AUTO (default) builds the CUDA parts whenever nvcc is found (CI has nvcc
# but no GPU: the code compiles and its tests skip); ON requires it; OFF never looks.
# Kernels target sm_90 (H100/H200) as real code plus compute_90 PTX that newer GPUs JIT.
# Host code that only calls the CUDA runtime API is compiled by the C++ compiler against
# CUDA::cudart, so -Werror stays on one compiler for almost everything; only .cu files
# (kernels) go through nvcc.
set(COMMBENCH_CUDA "AUTO" CACHE STRING "Build the CUDA parts: AUTO | ON | OFF")
set_property(CACHE COMMBENCH_CUDA PROPERTY STRINGS AUTO ON OFF)

set(COMMBENCH_HAVE_CUDA OFF)
if(NOT COMMBENCH_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc 13's C++20 flag; the kernels need only C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(COMMBENCH_HAVE_CUDA ON)
    # CUDART_VERSION style: 13000 for 13.0.
    math(EXPR COMMBENCH_CUDA_VERSION
         "${CUDAToolkit_VERSION_MAJOR} * 1000 + ${CUDAToolkit_VERSION_MINOR} * 10")
    message(STATUS "commbench: CUDA ${CUDAToolkit_VERSION} (${CMAKE_CUDA_COMPILER}), "
                   "architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(COMMBENCH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "COMMBENCH_CUDA=ON but no CUDA compiler was found "
                        "(set CMAKE_CUDA_COMPILER=/path/to/nvcc)")
  else()
    message(STATUS "commbench: no CUDA compiler; building without CUDA")
  endif()
endif()

# Compile options for .cu files: nvcc forwards host-compiler warnings with -Xcompiler;
# -Werror covers nvcc's own warnings (all-warnings) and the host compiler's.
function(commbench_cuda_target target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)
  if(COMMBENCH_WERROR)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
  endif()
endfunction()
