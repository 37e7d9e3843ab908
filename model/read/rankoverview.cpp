// SPDX-License-Identifier: GPL-3.0-or-later
#include "rankoverview.h"

#include "sourcework.h"
#include "steadystate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace gml {

void RankOverview::shares(const RankLane &lane, TimeNs a, TimeNs b, int columns, float *busy,
                          float *communication)
{
    const auto &act = lane.activity;
    const qsizetype buckets = act.busy.size();
    for (int c = 0; c < columns; ++c) {
        busy[c] = communication[c] = -1;
        if (act.width <= 0 || buckets == 0 || b <= a)
            continue;
        // The column's span, in buckets (fractional at both ends).
        const double x0 = (double(a - act.from) + double(b - a) * c / columns) / double(act.width);
        const double x1 =
            (double(a - act.from) + double(b - a) * (c + 1) / columns) / double(act.width);
        const double lo = std::max(0.0, x0), hi = std::min(double(buckets), x1);
        if (hi <= lo)
            continue;
        double sumBusy = 0, sumComm = 0;
        for (qsizetype k = qsizetype(lo); k < buckets && double(k) < hi; ++k) {
            const double w = std::min(hi, double(k + 1)) - std::max(lo, double(k));
            sumBusy += w * quint8(act.busy[k]);
            sumComm += w * quint8(act.communication[k]);
        }
        // Shares of the whole column: the part outside the window was idle.
        busy[c] = float(sumBusy / 255.0 / (x1 - x0));
        communication[c] = float(sumComm / 255.0 / (x1 - x0));
    }
}

std::vector<int> RankOverview::byWork() const
{
    std::vector<int> out(lanes.size());
    std::iota(out.begin(), out.end(), 0);
    std::stable_sort(out.begin(), out.end(),
                     [&](int x, int y) { return lanes[size_t(x)].work > lanes[size_t(y)].work; });
    return out;
}

std::vector<int> RankOverview::byHoldUp(const std::map<int, TimeNs> &lateByRank,
                                        const std::map<int, TimeNs> &criticalByRank,
                                        bool withWarmup) const
{
    std::vector<int> out(lanes.size());
    std::iota(out.begin(), out.end(), 0);
    const auto of = [&](const std::map<int, TimeNs> &m, int lane) {
        const auto it = m.find(lanes[size_t(lane)].rank);
        return it == m.end() ? TimeNs(0) : it->second;
    };
    const auto late = [&](int lane) { return of(lateByRank, lane); };
    const auto critical = [&](int lane) { return of(criticalByRank, lane); };
    std::stable_sort(out.begin(), out.end(), [&](int x, int y) {
        if (critical(x) != critical(y))
            return critical(x) > critical(y);
        if (late(x) != late(y))
            return late(x) > late(y);
        const auto wait = [&](int lane) {
            const RankLane &l = lanes[size_t(lane)];
            return withWarmup ? l.communication : l.steadyCommunication;
        };
        const TimeNs cx = wait(x), cy = wait(y);
        if (cx != cy)
            return cx < cy;
        return lanes[size_t(x)].rank < lanes[size_t(y)].rank;
    });
    return out;
}

std::vector<float> RankOverview::standOut(TimeNs a, TimeNs b,
                                          const std::map<int, TimeNs> &lateByRank) const
{
    std::vector<float> out(lanes.size(), 0.0f);
    if (lanes.size() < 2 || b <= a)
        return out;
    std::vector<float> waits(lanes.size(), -1.0f), sorted;
    for (size_t i = 0; i < lanes.size(); ++i) {
        float busy = -1;
        shares(lanes[i], a, b, 1, &busy, &waits[i]);
        if (busy >= 0)
            sorted.push_back(waits[i]);
    }
    float median = 0;
    if (!sorted.empty()) {
        std::sort(sorted.begin(), sorted.end());
        median = (sorted[(sorted.size() - 1) / 2] + sorted[sorted.size() / 2]) / 2;
    }
    TimeNs latest = 0;
    for (const auto &[rank, late] : lateByRank)
        latest = std::max(latest, late);
    for (size_t i = 0; i < lanes.size(); ++i) {
        double s = median > 0 && waits[i] >= 0 ? 1.0 - double(waits[i]) / double(median) : 0.0;
        if (const auto it = lateByRank.find(lanes[i].rank); it != lateByRank.end() && latest > 0)
            s = std::max(s, double(it->second) / double(latest));
        out[i] = float(std::clamp(s, 0.0, 1.0));
    }
    return out;
}

std::optional<RankOverview> loadRankOverview(Project &project, RunId run, QString *error)
{
    const auto sources = runSourceWork(project, run, error);
    if (!sources)
        return std::nullopt;
    RankOverview o;
    o.origin = std::numeric_limits<TimeNs>::max();
    o.end = std::numeric_limits<TimeNs>::min();
    std::map<int, std::vector<std::pair<TimeNs, TimeNs>>> iterations;
    for (const RunSourceWork &s : *sources) {
        for (const auto &r : s.work.ranks)
            for (const auto &[a, b] : r.iterations)
                iterations[r.rank].emplace_back(a + s.offset, b + s.offset);
        for (const auto &g : s.work.gpus) {
            RankLane lane;
            lane.rank = g.rank;
            lane.device = g.device;
            lane.source = s.source;
            lane.start = g.start + s.offset;
            lane.end = g.end + s.offset;
            lane.work = g.compute + g.copies;
            lane.communication = g.communication;
            lane.activity = g.activity;
            lane.activity.from += s.offset;
            o.origin = std::min(o.origin, lane.start);
            o.end = std::max(o.end, lane.end);
            o.lanes.push_back(std::move(lane));
        }
    }
    if (o.lanes.empty()) {
        o.origin = o.end = 0;
        return o;
    }
    for (auto &[rank, list] : iterations)
        std::sort(list.begin(), list.end());
    std::stable_sort(o.lanes.begin(), o.lanes.end(), [](const RankLane &a, const RankLane &b) {
        if (a.rank != b.rank)
            return a.rank < b.rank;
        bool okA = false, okB = false;
        const int da = a.device.toInt(&okA), db = b.device.toInt(&okB);
        return okA && okB ? da < db : a.device < b.device;
    });
    for (RankLane &lane : o.lanes)
        if (const auto it = iterations.find(lane.rank < 0 ? 0 : lane.rank); it != iterations.end())
            lane.iterations = it->second;
    // Steady state: from the latest first steady iteration of a rank with warm-up.
    o.steadyFrom = o.origin;
    for (const auto &[rank, list] : iterations) {
        std::vector<TimeNs> times;
        for (size_t k = 0; k < list.size(); ++k)
            times.push_back(std::max<TimeNs>(
                0, (k + 1 < list.size() ? list[k + 1].first : list[k].second) - list[k].first));
        if (const int warm = warmupIterations(times); warm > 0) {
            o.warmup = std::max(o.warmup, warm);
            o.steadyFrom = std::max(o.steadyFrom, list[size_t(warm)].first);
        }
    }
    for (RankLane &lane : o.lanes) {
        const TimeNs a = std::max(o.steadyFrom, lane.start), b = lane.end;
        float busy = -1, comm = 0;
        if (b > a)
            RankOverview::shares(lane, a, b, 1, &busy, &comm);
        lane.steadyCommunication =
            busy >= 0 ? TimeNs(std::llround(double(comm) * double(b - a))) : 0;
    }
    return o;
}

} // namespace gml
