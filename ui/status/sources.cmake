set(TB_MODULE_SOURCES elidedlabel.cpp failurebanner.cpp logpanel.cpp runprogress.cpp
                      wrappinglabel.cpp)
