// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "defaultinit.h"
#include "jsonscan.h"

#include <QString>

#include <string_view>
#include <vector>

namespace gml {

class InputStream;

// One Chrome trace event as the reader saw it. Values point into the reader's buffer and are
// valid only during ChromeTraceReader::Handler::event().
struct TraceEventView
{
    json::Value ph, name, cat, pid, tid, ts, dur, id, id2, bp, scope, s, args, bindId;
    bool flowIn = false;
    bool flowOut = false;
    int keyCount = 0;
    qint64 offset = 0;                                     // stream offset of the event's '{'
    const std::vector<json::Member> *argMembers = nullptr; // top-level members of args

    const json::Value *arg(std::string_view key) const
    {
        for (const auto &m : *argMembers)
            if (m.key == key)
                return &m.value;
        return nullptr;
    }
};

// Streams a Chrome Trace Event Format document (object with traceEvents, or a bare array)
// without holding it in memory: the buffer holds a few MB, and a unit (one event or one
// top-level member) is re-parsed from its start when it straddles a refill. Tolerates what
// chrome://tracing tolerates: a missing closing ']' (and '}'), a trailing comma, empty '{}'.
class ChromeTraceReader
{
public:
    // The most one unit (an event, or a top-level member) may take: a larger one is streamed
    // past without being held (a warning names it), so memory stays bounded whatever the file.
    static constexpr size_t kMaxUnitBytes = size_t(64) << 20;

    class Handler
    {
    public:
        virtual ~Handler() = default;
        // A top-level member other than traceEvents, as raw JSON text.
        virtual void topLevel(std::string_view key, std::string_view rawJson, qint64 offset) = 0;
        virtual void event(const TraceEventView &event) = 0;
        virtual void warning(qint64 offset, const QString &message) = 0;
        // Called at each refill; return false to cancel.
        virtual bool progress(qint64 filePosition) = 0;
    };

    enum class Status { Ok, Failed, Cancelled };

    ChromeTraceReader(InputStream &input, Handler &handler);
    Status run();
    // Events read from traceEvents (or the top-level array).
    qint64 eventCount() const { return m_eventCount; }
    const json::ParseError &error() const { return m_error; }
    qint64 bytesRead() const { return m_base + qint64(m_end); }

private:
    enum class State { Start, ObjectKey, ObjectAfterValue, ArrayElement, ArrayAfterElement, Done };
    struct NeedMore
    {
    };
    struct Cancelled
    {
    };

    void refill(size_t keepFrom);
    void parseUnit(const char *&p, const char *e);
    void parseEvent(const char *&p, const char *e);
    json::Value parseValue(const char *&p, const char *e);
    void parseArgs(const char *&p, const char *e, json::Value &out);
    void parseString(const char *&p, const char *e, json::Value &out);
    void skipContainer(const char *&p, const char *e);
    static void skipWs(const char *&p, const char *e)
    {
        while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            ++p;
    }
    void expect(const char *&p, const char *e, char c, const char *what);
    [[noreturn]] void fail(const char *p, const QString &message);
    [[noreturn]] void underflow(const char *unitStart);
    void skipOversizedUnit(size_t unitStart);
    qint64 offsetOf(const char *p) const { return m_base + (p - m_buf.data()); }
    void handleEof();

    InputStream &m_input;
    Handler &m_handler;
    ByteBuffer m_buf; // not zeroed: bytes are read into it before they are parsed
    size_t m_pos = 0;
    size_t m_end = 0;
    qint64 m_base = 0; // stream offset of m_buf[0]
    bool m_eof = false;
    State m_state = State::Start;
    bool m_topIsArray = false;
    bool m_sawTraceEvents = false;
    qint64 m_eventCount = 0;
    bool m_afterComma = false;
    json::ParseError m_error{0, {}};
    std::vector<json::Member> m_argMembers;
    TraceEventView m_event;
};

} // namespace gml
