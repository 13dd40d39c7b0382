// UnixSignalWatcher: the async-signal-safe handler and its socket pair.
#include "unixsignalwatcher.h"

#include <QSocketNotifier>

#include <csignal>
#include <stdexcept>

#include <sys/socket.h>
#include <unistd.h>

namespace tb::ui {

namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
int g_fds[2] = {-1, -1}; // [0] written by the handler, [1] read by the notifier
struct sigaction g_previous[3];

void onSignal(int signal) {
    const unsigned char number = static_cast<unsigned char>(signal);
    // write() is async-signal-safe; a full socket loses a repeat, never blocks.
    [[maybe_unused]] const ssize_t written = ::write(g_fds[0], &number, 1);
}

} // namespace

UnixSignalWatcher::UnixSignalWatcher(QObject* parent) : QObject(parent) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, g_fds) != 0)
        throw std::runtime_error("cannot create the socket pair for Unix signals");
    m_notifier = new QSocketNotifier(g_fds[1], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &UnixSignalWatcher::readSignal);
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int i = 0; i < 3; ++i)
        ::sigaction(kSignals[i], &action, &g_previous[i]);
}

UnixSignalWatcher::~UnixSignalWatcher() {
    for (int i = 0; i < 3; ++i)
        ::sigaction(kSignals[i], &g_previous[i], nullptr);
    ::close(g_fds[0]);
    ::close(g_fds[1]);
    g_fds[0] = g_fds[1] = -1;
}

QString UnixSignalWatcher::name(int signal) {
    switch (signal) {
    case SIGTERM:
        return QStringLiteral("SIGTERM");
    case SIGINT:
        return QStringLiteral("SIGINT");
    case SIGHUP:
        return QStringLiteral("SIGHUP");
    default:
        return QStringLiteral("signal %1").arg(signal);
    }
}

void UnixSignalWatcher::readSignal() {
    unsigned char number = 0;
    while (::read(g_fds[1], &number, 1) == 1)
        emit received(number, ++m_count);
}

} // namespace tb::ui
