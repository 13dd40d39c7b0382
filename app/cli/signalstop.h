// SignalStop: Ctrl+C or SIGTERM as a stop request for work that takes a std::stop_token (an
// experiment's arms, a sweep's trials): the run in progress ends after its current step with a
// checkpoint, and the command returns what it has.
#pragma once

#include <stop_token>
#include <thread>

namespace tb::cli {

class SignalStop {
public:
    // Installs the SIGINT and SIGTERM handlers and watches for them.
    SignalStop();
    ~SignalStop();
    SignalStop(const SignalStop&) = delete;
    SignalStop& operator=(const SignalStop&) = delete;

    std::stop_token token() const { return m_source.get_token(); }

private:
    std::stop_source m_source;
    std::jthread m_watcher; // the handler only sets a flag; this thread turns it into a request
};

} // namespace tb::cli
