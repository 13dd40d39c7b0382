set(TB_MODULE_SOURCES runstablemodel.cpp runsfilterproxy.cpp runsstore.cpp runsview.cpp comparison.cpp
                      comparisonplot.cpp parametersplot.cpp comparisonview.cpp runvalues.cpp
                      parallelaxes.cpp parallelcoordinates.cpp importanceview.cpp)
