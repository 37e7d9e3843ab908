// SPDX-License-Identifier: GPL-3.0-or-later
#include "chrometracereader.h"

#include "inputstream.h"

#include <algorithm>
#include <cstring>

namespace gml {

using json::Value;

// As large as the read-ahead's blocks: a refill takes one block, and the buffer grows only for
// an event larger than it. 4 MiB held 3 MiB more for as long as a file was read.
static constexpr size_t kInitialBuffer = size_t(1) << 20;

using json::describeByte;

// An event's key against a name of the length parseEvent's switch already checked: a compare of
// known size, inlined (string_view's == called out to memcmp, 1.6 M times for 70 K events).
template <size_t N> static inline bool keyIs(std::string_view k, const char (&name)[N])
{
    return std::memcmp(k.data(), name, N - 1) == 0;
}

ChromeTraceReader::ChromeTraceReader(InputStream &input, Handler &handler)
    : m_input(input), m_handler(handler)
{
    // A small file gets a small buffer (it grows when a unit needs more): allocating 4 MB for
    // each of many small files was most of the cost of reading them.
    const qint64 expected =
        m_input.isCompressed() ? m_input.fileSize() * 8 : m_input.fileSize() + 1;
    m_buf.resize(size_t(std::clamp<qint64>(expected, qint64(64) << 10, qint64(kInitialBuffer))));
    m_event.argMembers = &m_argMembers;
}

void ChromeTraceReader::refill(size_t keepFrom)
{
    if (!m_handler.progress(m_input.filePosition()))
        throw Cancelled{};
    const size_t keep = m_end - keepFrom;
    if (keepFrom > 0 && keep > 0)
        std::memmove(m_buf.data(), m_buf.data() + keepFrom, keep);
    m_base += qint64(keepFrom);
    m_pos -= std::min(m_pos, keepFrom);
    m_end = keep;
    if (m_end == m_buf.size())
        m_buf.resize(m_buf.size() * 2); // one unit larger than the buffer: grow
    const qint64 got = m_input.read(m_buf.data() + m_end, qint64(m_buf.size() - m_end));
    if (got < 0)
        throw json::ParseError{
            m_base + qint64(m_end),
            QStringLiteral("cannot read further: %1").arg(m_input.errorString())};
    if (got == 0)
        m_eof = true;
    m_end += size_t(got);
}

void ChromeTraceReader::fail(const char *p, const QString &message)
{
    throw json::ParseError{offsetOf(p), message};
}

void ChromeTraceReader::underflow(const char *unitStart)
{
    if (!m_eof)
        throw NeedMore{};
    fail(m_buf.data() + m_end,
         QStringLiteral("the file ends in the middle of %1 that starts at byte %2 (truncated?)")
             .arg(m_state == State::ArrayElement ? QStringLiteral("an event")
                                                 : QStringLiteral("a value"))
             .arg(offsetOf(unitStart)));
}

// Streams past a unit of kMaxUnitBytes or more from m_buf[unitStart] (an event object, or a
// top-level "key": value), keeping only the current buffer: strings, escapes and nesting are
// followed byte by byte until the unit's value closes. Then the reader goes on after it.
void ChromeTraceReader::skipOversizedUnit(size_t unitStart)
{
    const qint64 startOffset = m_base + qint64(unitStart);
    const bool event = m_state == State::ArrayElement;
    if (!event && m_state != State::ObjectKey)
        fail(m_buf.data() + unitStart,
             QStringLiteral("a value of more than %1 MiB; expected a Chrome trace's events")
                 .arg(kMaxUnitBytes >> 20));
    m_pos = unitStart;
    auto next = [&]() -> int {
        while (m_pos >= m_end) {
            if (m_eof)
                fail(m_buf.data() + m_end,
                     QStringLiteral("the file ends in the middle of %1 of more than %2 MiB that "
                                    "starts at byte %3 (truncated?)")
                         .arg(event ? QStringLiteral("an event") : QStringLiteral("a value"))
                         .arg(kMaxUnitBytes >> 20)
                         .arg(startOffset));
            refill(m_pos); // keeps nothing: the buffer does not grow
        }
        return static_cast<unsigned char>(m_buf[m_pos++]);
    };
    // A member is a key string, ':', then its value; an event is its value alone.
    int stringsBeforeValue = event ? 0 : 1;
    int depth = 0;
    bool inString = false, escape = false, inScalar = false;
    for (;;) {
        const int c = next();
        if (inString) {
            if (escape)
                escape = false;
            else if (c == '\\')
                escape = true;
            else if (c == '"') {
                inString = false;
                if (stringsBeforeValue > 0)
                    --stringsBeforeValue;
                else if (depth == 0)
                    break; // the value was a string
            }
            continue;
        }
        if (inScalar) {
            if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' ||
                c == '\t') {
                --m_pos; // the delimiter belongs to the enclosing level
                break;
            }
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth <= 0)
                break;
        } else if (stringsBeforeValue == 0 && depth == 0 && c != ':' && c != ' ' && c != '\n' &&
                   c != '\r' && c != '\t') {
            inScalar = true;
        }
    }
    m_handler.warning(
        startOffset,
        QStringLiteral("%1 at byte %2 ends at byte %3, over the limit of %4 MiB for "
                       "one %5; skipped without being read")
            .arg(event ? QStringLiteral("the event") : QStringLiteral("the top-level member"))
            .arg(startOffset)
            .arg(offsetOf(m_buf.data() + m_pos))
            .arg(kMaxUnitBytes >> 20)
            .arg(event ? QStringLiteral("event") : QStringLiteral("member")));
    m_state = event ? State::ArrayAfterElement : State::ObjectAfterValue;
}

void ChromeTraceReader::parseEvent(const char *&p, const char *e)
{
    // p at '{'.
    TraceEventView &ev = m_event;
    ev = TraceEventView{};
    ev.argMembers = &m_argMembers;
    m_argMembers.clear();
    ev.offset = offsetOf(p);
    ++p;
    skipWs(p, e);
    if (p >= e)
        throw NeedMore{};
    if (*p == '}') {
        ++p;
        return;
    }
    for (;;) {
        skipWs(p, e);
        if (p >= e)
            throw NeedMore{};
        if (*p != '"')
            fail(p, QStringLiteral("expected a key string in an event, found %1")
                        .arg(describeByte(p, e)));
        Value key;
        parseString(p, e, key);
        expect(p, e, ':', "':' after a key");
        skipWs(p, e);
        if (p >= e)
            throw NeedMore{};
        ++ev.keyCount;
        const std::string_view k = key.raw();
        Value *slot = nullptr;
        switch (k.size()) {
        case 1:
            if (keyIs(k, "s"))
                slot = &ev.s;
            break;
        case 2:
            if (keyIs(k, "ph"))
                slot = &ev.ph;
            else if (keyIs(k, "ts"))
                slot = &ev.ts;
            else if (keyIs(k, "id"))
                slot = &ev.id;
            else if (keyIs(k, "bp"))
                slot = &ev.bp;
            break;
        case 3:
            if (keyIs(k, "pid"))
                slot = &ev.pid;
            else if (keyIs(k, "tid"))
                slot = &ev.tid;
            else if (keyIs(k, "dur"))
                slot = &ev.dur;
            else if (keyIs(k, "cat"))
                slot = &ev.cat;
            else if (keyIs(k, "id2"))
                slot = &ev.id2;
            break;
        case 4:
            if (keyIs(k, "name"))
                slot = &ev.name;
            else if (keyIs(k, "args") && *p == '{') {
                parseArgs(p, e, ev.args);
                goto next;
            }
            break;
        case 5:
            if (keyIs(k, "scope"))
                slot = &ev.scope;
            break;
        case 7:
            if (keyIs(k, "bind_id"))
                slot = &ev.bindId;
            else if (keyIs(k, "flow_in")) {
                ev.flowIn = parseValue(p, e).type == Value::Type::True;
                goto next;
            }
            break;
        case 8:
            if (keyIs(k, "flow_out")) {
                ev.flowOut = parseValue(p, e).type == Value::Type::True;
                goto next;
            }
            break;
        default:
            break;
        }
        if (slot)
            *slot = parseValue(p, e);
        else
            (void)parseValue(p, e);
    next:
        skipWs(p, e);
        if (p >= e)
            throw NeedMore{};
        if (*p == ',') {
            ++p;
            continue;
        }
        if (*p == '}') {
            ++p;
            return;
        }
        fail(p,
             QStringLiteral("expected ',' or '}' in an event, found %1").arg(describeByte(p, e)));
    }
}

void ChromeTraceReader::parseUnit(const char *&p, const char *e)
{
    switch (m_state) {
    case State::Start: {
        if (e - p >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
            p += 3;
            skipWs(p, e);
            if (p >= e)
                throw NeedMore{};
        }
        if (*p == '{') {
            m_topIsArray = false;
            m_state = State::ObjectKey;
        } else if (*p == '[') {
            m_topIsArray = true;
            m_sawTraceEvents = true;
            m_state = State::ArrayElement;
        } else {
            fail(p, QStringLiteral("expected a JSON object ('{' with traceEvents) or array ('[') "
                                   "at the start of a Chrome trace, found %1")
                        .arg(describeByte(p, e)));
        }
        ++p;
        m_afterComma = false;
        return;
    }
    case State::ObjectKey: {
        if (*p == '}' && !m_afterComma) {
            ++p;
            m_state = State::Done;
            return;
        }
        if (*p != '"')
            fail(p, QStringLiteral("expected a key string or '}' in the top-level object, found %1")
                        .arg(describeByte(p, e)));
        Value key;
        parseString(p, e, key);
        expect(p, e, ':', "':' after a top-level key");
        skipWs(p, e);
        if (p >= e)
            throw NeedMore{};
        if (key.raw() == "traceEvents") {
            if (*p != '[')
                fail(p, QStringLiteral("expected an array ('[') for traceEvents, found %1")
                            .arg(describeByte(p, e)));
            if (m_sawTraceEvents) // JSON parsers keep one of the two; which one differs
                m_handler.warning(offsetOf(p),
                                  QStringLiteral("a second 'traceEvents' array; a trace holds one, "
                                                 "and the events of both are read"));
            ++p;
            m_sawTraceEvents = true;
            m_state = State::ArrayElement;
            m_afterComma = false;
            return;
        }
        const Value v = parseValue(p, e);
        const std::string_view raw =
            v.type == Value::Type::String ? std::string_view(v.data - 1, v.size + 2) : v.raw();
        m_handler.topLevel(key.raw(), raw, v.offset);
        m_state = State::ObjectAfterValue;
        return;
    }
    case State::ObjectAfterValue:
        if (*p == ',') {
            ++p;
            m_state = State::ObjectKey;
            m_afterComma = true;
            return;
        }
        if (*p == '}') {
            ++p;
            m_state = State::Done;
            return;
        }
        fail(p, QStringLiteral("expected ',' or '}' in the top-level object, found %1")
                    .arg(describeByte(p, e)));
    case State::ArrayElement:
        if (*p == ']') { // also accepts a trailing comma before ']', as chrome://tracing does
            ++p;
            m_state = m_topIsArray ? State::Done : State::ObjectAfterValue;
            return;
        }
        if (*p != '{')
            fail(p, QStringLiteral("expected an event object ('{') in the event array, found %1")
                        .arg(describeByte(p, e)));
        parseEvent(p, e);
        ++m_eventCount;
        m_handler.event(m_event);
        m_state = State::ArrayAfterElement;
        return;
    case State::ArrayAfterElement:
        if (*p == ',') {
            ++p;
            m_state = State::ArrayElement;
            return;
        }
        if (*p == ']') {
            ++p;
            m_state = m_topIsArray ? State::Done : State::ObjectAfterValue;
            return;
        }
        fail(
            p,
            QStringLiteral("expected ',' or ']' after an event, found %1").arg(describeByte(p, e)));
    case State::Done:
        return;
    }
}

void ChromeTraceReader::handleEof()
{
    const qint64 at = m_base + qint64(m_end);
    switch (m_state) {
    case State::Start:
        throw json::ParseError{at, at == 0 ? QStringLiteral("the file is empty; expected a Chrome "
                                                            "trace (JSON object or array)")
                                           : QStringLiteral("the file holds only whitespace; "
                                                            "expected a Chrome trace")};
    case State::ArrayElement:
    case State::ArrayAfterElement:
        m_handler.warning(at, m_topIsArray
                                  ? QStringLiteral("the event array has no closing ']' (accepted, "
                                                   "as chrome://tracing does)")
                                  : QStringLiteral("the file ends inside traceEvents without the "
                                                   "closing ']' and '}' (accepted; the file may be "
                                                   "truncated between two events)"));
        break;
    case State::ObjectKey:
    case State::ObjectAfterValue:
        if (!m_sawTraceEvents)
            throw json::ParseError{at, QStringLiteral("the file ends before the top-level object "
                                                      "is closed, and no traceEvents array was "
                                                      "found (truncated?)")};
        m_handler.warning(at, QStringLiteral("the top-level object has no closing '}' (accepted)"));
        break;
    case State::Done:
        break;
    }
    m_state = State::Done;
}

ChromeTraceReader::Status ChromeTraceReader::run()
{
    try {
        for (;;) {
            const char *e = m_buf.data() + m_end;
            const char *p = m_buf.data() + m_pos;
            skipWs(p, e);
            m_pos = size_t(p - m_buf.data());
            if (p >= e) {
                if (!m_eof) {
                    refill(m_pos);
                    continue;
                }
                if (m_state != State::Done)
                    handleEof();
                break;
            }
            if (m_state == State::Done) {
                m_handler.warning(offsetOf(p), QStringLiteral("ignored data after the end of the "
                                                              "JSON document, starting with %1")
                                                   .arg(describeByte(p, e)));
                break;
            }
            const char *unitStart = p;
            try {
                parseUnit(p, e);
                m_pos = size_t(p - m_buf.data());
            } catch (const NeedMore &) {
                if (m_eof)
                    underflow(unitStart);
                if (size_t(e - unitStart) >= kMaxUnitBytes) {
                    skipOversizedUnit(size_t(unitStart - m_buf.data()));
                    continue;
                }
                refill(size_t(unitStart - m_buf.data()));
            }
        }
        if (!m_sawTraceEvents)
            throw json::ParseError{0, QStringLiteral("the JSON object has no 'traceEvents' array; "
                                                     "expected a Chrome trace")};
    } catch (const json::ParseError &err) {
        m_error = err;
        return Status::Failed;
    } catch (const Cancelled &) {
        return Status::Cancelled;
    }
    return Status::Ok;
}

} // namespace gml
