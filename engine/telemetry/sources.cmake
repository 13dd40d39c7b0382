set(TB_MODULE_SOURCES
    hostsampler.cpp
    nvmlsampler.cpp
    telemetrysampler.cpp)
