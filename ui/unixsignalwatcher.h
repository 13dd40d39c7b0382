// UnixSignalWatcher: SIGTERM, SIGINT and SIGHUP as a Qt signal on the UI thread (Qt's
// socket-notifier pattern: the handler only writes the signal's number to a socket pair, which
// a QSocketNotifier reads in the event loop). A desktop session ends its programs with SIGTERM;
// a closed terminal sends SIGHUP.
#pragma once

#include <QObject>

class QSocketNotifier;

namespace tb::ui {

class UnixSignalWatcher : public QObject {
    Q_OBJECT
public:
    // Installs the handlers (one watcher per process); the previous ones come back when it is
    // destroyed. Throws std::runtime_error when the socket pair cannot be made.
    explicit UnixSignalWatcher(QObject* parent = nullptr);
    ~UnixSignalWatcher() override;

    // The signal's conventional name ("SIGTERM").
    static QString name(int signal);

signals:
    // `count`: how many of the watched signals have arrived so far, this one included.
    void received(int signal, int count);

private:
    void readSignal();

    QSocketNotifier* m_notifier = nullptr;
    int m_count = 0;
};

} // namespace tb::ui
