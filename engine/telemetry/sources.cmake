set(TB_MODULE_SOURCES
    hostinfo.cpp
    hostsampler.cpp
    nvmlsampler.cpp
    telemetrysampler.cpp)
