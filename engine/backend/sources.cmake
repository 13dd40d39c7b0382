set(TB_MODULE_SOURCES
    cpu/cpubackend.cpp
    cpu/cpubatchnorm.cpp
    cpu/cpubatchnormblocked.cpp
    cpu/cpuconv.cpp
    cpu/cpuconvops.cpp
    cpu/cpuelementwise.cpp
    cpu/cpufeaturemaps.cpp
    cpu/cpuisa.cpp
    cpu/cpulayernorm.cpp
    cpu/cpulayout.cpp
    cpu/cpulinear.cpp
    cpu/cpumatmul.cpp
    cpu/cpuloss.cpp
    cpu/cpuoptim.cpp
    cpu/cpupeak.cpp
    cpu/cpupool.cpp
    cpu/cpuresize.cpp
    cpu/cputransformer.cpp
    metabackend.cpp)
# Device probing, the CUDA plugin loader and backend creation (owned by the CUDA backend).
list(APPEND TB_MODULE_SOURCES devices.cpp)
