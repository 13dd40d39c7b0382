set(TB_MODULE_SOURCES mainwindow.cpp mainwindowteaching.cpp mainwindowmenus.cpp mainwindowsweeps.cpp
                      runcontroller.cpp stoppablethread.cpp
                      pagescrollarea.cpp unixsignalwatcher.cpp windowlosswatcher.cpp)
