set(TB_MODULE_SOURCES gradscaler.cpp lrschedule.cpp optimizer.cpp)
