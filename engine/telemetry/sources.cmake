set(TB_MODULE_SOURCES
    hostinfo.cpp
    hostsampler.cpp
    doctorreport.cpp
    nvmlsampler.cpp
    telemetrysampler.cpp)
