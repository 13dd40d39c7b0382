set(TB_MODULE_SOURCES experimentpreset.cpp experimentconclusion.cpp experimentrunner.cpp
                      lrfinder.cpp batchfinder.cpp lesson.cpp experimentimages.cpp
                      sweepdefinition.cpp sweeprunner.cpp halving.cpp
                      parameterimportance.cpp)
