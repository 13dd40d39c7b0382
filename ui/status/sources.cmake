set(TB_MODULE_SOURCES failurebanner.cpp logpanel.cpp runprogress.cpp)
