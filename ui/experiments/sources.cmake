set(TB_MODULE_SOURCES backgroundtask.cpp experimentcontroller.cpp lrfinderchart.cpp lrfinderdialog.cpp
                      batchfinderdialog.cpp)
