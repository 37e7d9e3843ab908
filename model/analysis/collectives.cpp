// SPDX-License-Identifier: GPL-3.0-or-later
// The collectives report (collectives.h): the collective kernels of a run matched across ranks,
// skew against transfer, algorithm and bus bandwidth.
#include "collectives.h"

#include "collectiveslices.h"
#include "sliceclass.h"
#include "timeformat.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

namespace gml {

namespace {

// The size of one element of a collective's "dtype", c10's ScalarType name as Kineto writes it
// ("Float", "BFloat16"); 0: unknown. Not opcost's dtypeBytes, whose names are an op's "Input
// type" (C++ names; there "Int", "Double" and "Bool" are scalar arguments, not tensors).
int scalarTypeBytes(QStringView dtype)
{
    static const QHash<QString, int> sizes = {
        {QStringLiteral("Float"), 4},         {QStringLiteral("Half"), 2},
        {QStringLiteral("BFloat16"), 2},      {QStringLiteral("Double"), 8},
        {QStringLiteral("Int"), 4},           {QStringLiteral("Long"), 8},
        {QStringLiteral("Short"), 2},         {QStringLiteral("Char"), 1},
        {QStringLiteral("Byte"), 1},          {QStringLiteral("Bool"), 1},
        {QStringLiteral("Float8_e4m3fn"), 1}, {QStringLiteral("Float8_e5m2"), 1},
        {QStringLiteral("ComplexFloat"), 8},  {QStringLiteral("ComplexDouble"), 16},
    };
    return sizes.value(dtype.toString(), 0);
}

// "[0, 1, 2]" -> {0, 1, 2}
QList<int> rankList(const QString &text)
{
    QList<int> out;
    const auto doc = QJsonDocument::fromJson(text.toUtf8());
    for (const auto &v : doc.array())
        if (v.isDouble())
            out << v.toInt();
    return out;
}

struct Read
{
    CollectiveMember member;
    int op = -1;
    QJsonObject args;
};

// The matching key: process group, operation, the k-th of them on the rank.
using Key = std::tuple<QString, int, int>;

Collective collectiveOf(std::vector<const Read *> reads,
                        const std::map<QString, QSet<int>> &groupRanks)
{
    std::sort(reads.begin(), reads.end(),
              [](const Read *a, const Read *b) { return a->member.rank < b->member.rank; });
    Collective c;
    const QJsonObject &args = reads.front()->args;
    c.operation = collectiveOperations()[reads.front()->op];
    c.name = args.value(QStringLiteral("Collective name")).toString(c.operation);
    c.group = args.value(QStringLiteral("Process Group Name")).toString();
    c.dtype = args.value(QStringLiteral("dtype")).toString();
    c.groupRanks = rankList(args.value(QStringLiteral("Process Group Ranks")).toString());
    const auto ranksOfGroup = groupRanks.find(c.group);
    c.groupSize = args.value(QStringLiteral("Group size")).toInt(0);
    if (c.groupSize <= 0)
        c.groupSize =
            ranksOfGroup != groupRanks.end() ? int(ranksOfGroup->second.size()) : int(reads.size());
    auto count = [&](const QString &key) -> std::optional<qint64> {
        const QJsonValue v = args.value(key);
        return v.isDouble() ? std::optional<qint64>(qint64(v.toDouble())) : std::nullopt;
    };
    c.bytes = collectiveMessageBytes(c.operation == QLatin1String("AllGather"),
                                     count(QStringLiteral("In msg nelems")),
                                     count(QStringLiteral("Out msg nelems")), c.dtype)
                  .value_or(-1);
    c.firstStart = c.lastStart = reads.front()->member.start;
    c.firstEnd = c.lastEnd = reads.front()->member.end;
    for (const Read *r : reads) {
        c.members.push_back(r->member);
        c.firstStart = std::min(c.firstStart, r->member.start);
        c.lastStart = std::max(c.lastStart, r->member.start);
        c.firstEnd = std::min(c.firstEnd, r->member.end);
        c.lastEnd = std::max(c.lastEnd, r->member.end);
    }
    if (c.groupRanks.isEmpty())
        for (const auto &m : c.members)
            c.groupRanks << m.rank;
    std::vector<TimeNs> after;
    for (const auto &m : c.members)
        after.push_back(std::max<TimeNs>(0, m.end - c.lastStart));
    std::nth_element(after.begin(), after.begin() + qsizetype(after.size() / 2), after.end());
    c.transfer = after[after.size() / 2];
    return c;
}

} // namespace

double busFactor(const QString &operation, int ranks)
{
    const double n = std::max(1, ranks);
    if (operation == QLatin1String("AllReduce"))
        return 2 * (n - 1) / n;
    if (operation == QLatin1String("AllGather") || operation == QLatin1String("ReduceScatter") ||
        operation == QLatin1String("AllToAll"))
        return (n - 1) / n;
    return 1; // Broadcast, Reduce, SendRecv, Send, Recv
}

std::optional<qint64> collectiveMessageBytes(bool allGather, std::optional<qint64> inNelems,
                                             std::optional<qint64> outNelems, QStringView dtype)
{
    const std::optional<qint64> n = allGather ? outNelems : inNelems;
    const int size = scalarTypeBytes(dtype);
    if (!n || *n < 0 || size <= 0 || *n > std::numeric_limits<qint64>::max() / size)
        return std::nullopt;
    return *n * size;
}

double Collective::busFactor() const
{
    return gml::busFactor(operation, groupSize);
}

double Collective::algbwGBps() const
{
    return bytes > 0 && transfer > 0 ? double(bytes) / double(transfer) : 0; // B/ns = GB/s
}

int Collective::lastRank() const
{
    if (members.size() < 2)
        return -1;
    return std::max_element(members.begin(), members.end(),
                            [](const CollectiveMember &a, const CollectiveMember &b) {
                                return a.start < b.start;
                            })
        ->rank;
}

int Collective::firstRank() const
{
    if (members.size() < 2)
        return -1;
    return std::min_element(members.begin(), members.end(),
                            [](const CollectiveMember &a, const CollectiveMember &b) {
                                return a.start < b.start;
                            })
        ->rank;
}

std::optional<CollectiveReport> collectiveReport(Project &project, RunId run, QString *error)
{
    QString why;
    const std::vector<CollectiveSlice> slices = collectiveSlices(project, run, &why);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    std::vector<Read> reads;
    for (const CollectiveSlice &s : slices) {
        const int op = collectiveOperation(s.name);
        if (op < 0)
            continue;
        Read r;
        r.member = {std::max(0, s.rank), s.id, s.track, s.start, s.start + s.dur};
        r.op = op;
        if (!s.args.isEmpty())
            r.args = QJsonDocument::fromJson(s.args.toUtf8()).object();
        reads.push_back(std::move(r));
    }
    // Each rank's collectives of a group and operation, in the order it ran them.
    std::sort(reads.begin(), reads.end(), [](const Read &a, const Read &b) {
        return std::tie(a.member.rank, a.member.start, a.member.slice) <
               std::tie(b.member.rank, b.member.start, b.member.slice);
    });
    std::map<std::tuple<int, QString, int>, int> seen; // (rank, group, op) -> how many
    std::map<Key, std::vector<const Read *>> matched;
    std::map<QString, QSet<int>> groupRanks;
    for (const Read &r : reads) {
        const QString group = r.args.value(QStringLiteral("Process Group Name")).toString();
        const int k = seen[{r.member.rank, group, r.op}]++;
        matched[{group, r.op, k}].push_back(&r);
        groupRanks[group].insert(r.member.rank);
    }
    CollectiveReport report;
    for (const auto &[key, members] : matched)
        report.collectives.push_back(collectiveOf(members, groupRanks));
    std::sort(report.collectives.begin(), report.collectives.end(),
              [](const Collective &a, const Collective &b) {
                  return std::tie(a.firstStart, a.group, a.operation) <
                         std::tie(b.firstStart, b.group, b.operation);
              });
    std::map<int, RankCollectives> ranks;
    for (size_t i = 0; i < report.collectives.size(); ++i) {
        Collective &c = report.collectives[i];
        c.index = int(i);
        for (const CollectiveMember &m : c.members) {
            RankCollectives &r = ranks[m.rank];
            r.rank = m.rank;
            ++r.collectives;
            r.wait += c.lastStart - m.start;
            r.comm += m.end - m.start;
        }
        if (const int last = c.lastRank(); last >= 0)
            ++ranks[last].lastArrivals;
        if (const int first = c.firstRank(); first >= 0)
            ++ranks[first].firstArrivals;
    }
    for (const auto &[rank, r] : ranks)
        report.ranks.push_back(r);
    return report;
}

QJsonObject Collective::toJson() const
{
    QJsonArray perRank, groupList;
    for (const CollectiveMember &m : members)
        perRank.append(QJsonObject{{QStringLiteral("rank"), m.rank},
                                   {QStringLiteral("slice"), m.slice},
                                   {QStringLiteral("start_ns"), m.start},
                                   {QStringLiteral("end_ns"), m.end},
                                   {QStringLiteral("dur_ns"), m.end - m.start},
                                   {QStringLiteral("wait_ns"), lastStart - m.start}});
    for (int r : groupRanks)
        groupList.append(r);
    auto orNull = [](bool known, const QJsonValue &v) { return known ? v : QJsonValue(); };
    return {{QStringLiteral("index"), index},
            {QStringLiteral("name"), name},
            {QStringLiteral("operation"), operation},
            {QStringLiteral("group"), group},
            {QStringLiteral("group_size"), groupSize},
            {QStringLiteral("ranks"), groupList},
            {QStringLiteral("dtype"), orNull(!dtype.isEmpty(), dtype)},
            {QStringLiteral("bytes"), orNull(bytes >= 0, bytes)},
            {QStringLiteral("start_ns"), firstStart},
            {QStringLiteral("dur_ns"), duration()},
            {QStringLiteral("skew_start_ns"), skewStart()},
            {QStringLiteral("skew_end_ns"), skewEnd()},
            {QStringLiteral("comm_ns"), transfer},
            {QStringLiteral("algbw_gbps"), orNull(algbwGBps() > 0, algbwGBps())},
            {QStringLiteral("busbw_gbps"), orNull(algbwGBps() > 0, busbwGBps())},
            {QStringLiteral("bus_factor"), busFactor()},
            {QStringLiteral("link"), orNull(!link.isEmpty(), link)},
            {QStringLiteral("link_peak_gbps"), orNull(linkPeakGBps > 0, linkPeakGBps)},
            {QStringLiteral("link_assumed"), linkAssumed},
            {QStringLiteral("per_rank"), perRank}};
}

QJsonObject CollectiveReport::toJson() const
{
    QJsonArray cs, rs;
    for (const Collective &c : collectives)
        cs.append(c.toJson());
    for (const RankCollectives &r : ranks)
        rs.append(QJsonObject{{QStringLiteral("rank"), r.rank},
                              {QStringLiteral("collectives"), r.collectives},
                              {QStringLiteral("wait_ns"), r.wait},
                              {QStringLiteral("last_arrivals"), r.lastArrivals},
                              {QStringLiteral("first_arrivals"), r.firstArrivals},
                              {QStringLiteral("comm_ns"), r.comm}});
    return {{QStringLiteral("collectives"), cs}, {QStringLiteral("ranks"), rs}};
}

} // namespace gml
