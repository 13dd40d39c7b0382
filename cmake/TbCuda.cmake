# Decides whether the CUDA backend plugin is built: CUDA 13 + cuDNN 9 from /usr/local/cuda.
set(TB_HAVE_CUDA OFF)
if(NOT TB_CUDA STREQUAL "OFF")
    if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
        set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    find_path(TB_CUDNN_INCLUDE cudnn.h PATHS /usr/local/cuda/include /usr/include)
    find_library(TB_CUDNN_LIB cudnn PATHS /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu)
    find_path(TB_NCCL_INCLUDE nccl.h PATHS /usr/local/cuda/include /usr/include)
    if(CMAKE_CUDA_COMPILER AND TB_CUDNN_INCLUDE AND TB_CUDNN_LIB)
        enable_language(CUDA)
        # Debian 12's CMake 3.25.1 FindCUDAToolkit tags CUDA::nvToolsExt as deprecated without
        # checking that it was found, and CUDA 13 ships no libnvToolsExt (only the header-only
        # nvtx3): set_property fails. The tagging runs only when the project's minimum is 3.25,
        # so hide ours for this one call (CMake 3.25.2 checks the target itself).
        set(tb_min_version ${CMAKE_MINIMUM_REQUIRED_VERSION})
        set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
        find_package(CUDAToolkit REQUIRED)
        set(CMAKE_MINIMUM_REQUIRED_VERSION ${tb_min_version})
        # What we ship: machine code for each architecture that needs its own (Turing 7.5; Ampere
        # 8.0, which 8.6 and Ada's 8.9 run as they are; Hopper 9.0), and Hopper's PTX, which the
        # driver compiles for newer GPUs when the plugin loads. No kernel of ours uses a feature
        # of 8.6 or 8.9, so their own copies would only double the compile.
        set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 90-real 90-virtual)
        set(TB_HAVE_CUDA ON)
    elseif(TB_CUDA STREQUAL "ON")
        message(FATAL_ERROR "TB_CUDA=ON but nvcc or cuDNN was not found under /usr/local/cuda")
    endif()
endif()
message(STATUS "TrainBench CUDA backend plugin: ${TB_HAVE_CUDA}")
if(TB_HAVE_CUDA)
    if(TB_NCCL_INCLUDE)
        message(STATUS "TrainBench data-parallel GPU ranks: NCCL (${TB_NCCL_INCLUDE}/nccl.h; "
                       "libnccl.so.2 opened at run time)")
    else()
        message(STATUS "TrainBench data-parallel GPU ranks: no NCCL (GPU ranks reduce over MPI)")
    endif()
endif()
