// SPDX-License-Identifier: GPL-3.0-or-later
#include "types.h"

namespace gml {

QString trackKindName(TrackKind kind)
{
    switch (kind) {
    case TrackKind::Host:
        return QStringLiteral("host");
    case TrackKind::Process:
        return QStringLiteral("process");
    case TrackKind::Thread:
        return QStringLiteral("thread");
    case TrackKind::Gpu:
        return QStringLiteral("gpu");
    case TrackKind::Stream:
        return QStringLiteral("stream");
    case TrackKind::Counter:
        return QStringLiteral("counter");
    case TrackKind::Link:
        return QStringLiteral("link");
    case TrackKind::WorkflowStep:
        return QStringLiteral("workflow step");
    case TrackKind::Async:
        return QStringLiteral("async");
    }
    return QStringLiteral("unknown");
}

QString flowKindName(FlowKind kind)
{
    switch (kind) {
    case FlowKind::Launch:
        return QStringLiteral("launch");
    case FlowKind::Sync:
        return QStringLiteral("sync");
    case FlowKind::Sequence:
        return QStringLiteral("sequence");
    case FlowKind::Collective:
        return QStringLiteral("collective");
    case FlowKind::Data:
        return QStringLiteral("data");
    case FlowKind::Workflow:
        return QStringLiteral("workflow");
    case FlowKind::CpuOpToGpu:
        return QStringLiteral("cpu op to gpu");
    case FlowKind::TraceFlow:
        return QStringLiteral("trace flow");
    }
    return QStringLiteral("unknown");
}

} // namespace gml
