// SPDX-License-Identifier: GPL-3.0-or-later
#include "sliceclass.h"

#include "runsort.h"

#include <QRegularExpression>

#include <algorithm>
#include <initializer_list>

namespace gml {

const QStringList &collectiveOperations()
{
    // Longest first: "AllReduce" must not be read as "Reduce", "SendRecv" as "Send".
    static const QStringList ops = {
        QStringLiteral("AllReduce"), QStringLiteral("AllGather"), QStringLiteral("ReduceScatter"),
        QStringLiteral("AllToAll"),  QStringLiteral("Broadcast"), QStringLiteral("SendRecv"),
        QStringLiteral("Reduce"),    QStringLiteral("Send"),      QStringLiteral("Recv"),
    };
    return ops;
}

int collectiveOperation(const QString &kernelName)
{
    // ncclKernel_AllReduce_RING_LL_Sum_float(...), ncclDevKernel_SendRecv(...),
    // ncclAllReduceRingLLKernel_sum_f32(...) (NCCL 2.4), rcclKernel_..., possibly "void " first.
    QStringView name(kernelName);
    if (name.startsWith(QLatin1String("void ")))
        name = name.mid(5);
    if (!name.startsWith(QLatin1String("nccl"), Qt::CaseInsensitive) &&
        !name.startsWith(QLatin1String("rccl"), Qt::CaseInsensitive))
        return -1;
    const qsizetype paren = name.indexOf(QLatin1Char('('));
    if (paren >= 0)
        name = name.left(paren);
    if (!name.contains(QLatin1String("Kernel"), Qt::CaseInsensitive))
        return -1;
    const auto &ops = collectiveOperations();
    for (int i = 0; i < ops.size(); ++i)
        if (name.contains(ops[i], Qt::CaseInsensitive))
            return i;
    return -1;
}

static bool oneOf(const QString &s, std::initializer_list<const char *> list)
{
    for (const char *x : list)
        if (s == QLatin1String(x))
            return true;
    return false;
}

QString stableName(const QString &name)
{
    if (!name.contains(QLatin1String("0x")) && !name.contains(QLatin1String(".py(")))
        return name;
    static const QRegularExpression at(QStringLiteral(" at 0x[0-9a-fA-F]+"));
    static const QRegularExpression address(QStringLiteral("0x[0-9a-fA-F]{8,}"));
    static const QRegularExpression line(QStringLiteral("\\.py\\(\\d+\\)"));
    QString out = name;
    out.replace(at, QString());
    out.replace(address, QStringLiteral("0x…"));
    out.replace(line, QStringLiteral(".py"));
    return out;
}

bool isProfilerStep(const QString &name)
{
    static const QRegularExpression step(QStringLiteral("^ProfilerStep#\\d+$"));
    return step.match(name).hasMatch();
}

bool isIterationName(const QString &name)
{
    static const QRegularExpression iteration(
        QStringLiteral(R"(^(ProfilerStep#\d+|(iteration|iter|step|epoch)[\s_#:=-]*\d+)$)"),
        QRegularExpression::CaseInsensitiveOption);
    return iteration.match(name).hasMatch();
}

CategoryClass categoryClass(const QString &cat)
{
    return cat == QLatin1String("cuda_sync")                               ? CategoryClass::Sync
           : cat.compare(QLatin1String("trace"), Qt::CaseInsensitive) == 0 ? CategoryClass::Trace
           : oneOf(cat, {"gpu_memcpy", "Memcpy"})                          ? CategoryClass::Memcpy
           : oneOf(cat, {"gpu_memset", "Memset"})                          ? CategoryClass::Memset
           : oneOf(cat, {"cuda_runtime", "cuda_driver", "Runtime", "Driver", "privateuse1_runtime",
                         "privateuse1_driver"})
               ? CategoryClass::Runtime
               : CategoryClass::Other;
}

NameClass nameClass(const QString &name)
{
    NameClass c;
    c.profilerSpan = name.startsWith(QLatin1String("PyTorch Profiler ("));
    c.memcpy = name.startsWith(QLatin1String("Memcpy"));
    c.memset = name.startsWith(QLatin1String("Memset"));
    c.collective = collectiveOperation(name);
    return c;
}

SliceRole sliceRole(const QString &name, bool onGpu)
{
    // Ranges people put around their code: PyTorch's record_function ("## forward ##"), the
    // profiler's steps and spans, NVTX-like "iteration 3".
    if (isIterationName(name) || name.startsWith(QLatin1String("## ")) ||
        name.startsWith(QLatin1String("PyTorch Profiler (")))
        return SliceRole::Annotation;
    const NameClass n = nameClass(name);
    if (n.collective >= 0 || name.startsWith(QLatin1String("nccl:")) ||
        name.startsWith(QLatin1String("c10d::")) ||
        name.startsWith(QLatin1String("record_param_comms")))
        return SliceRole::Communication;
    if (n.memcpy || n.memset || name.startsWith(QLatin1String("cudaMemcpy")) ||
        name.startsWith(QLatin1String("hipMemcpy")) || name.startsWith(QLatin1String("cudaMemset")))
        return SliceRole::Copy;
    if (onGpu)
        return kernelKind(name).family == KernelKind::Family::Communication
                   ? SliceRole::Communication
               : kernelKind(name).family == KernelKind::Family::Copy ? SliceRole::Copy
                                                                     : SliceRole::Compute;
    // Python frames of the PyTorch profiler's with_stack / python_function events.
    if (name.contains(QLatin1String(".py(")) || name.startsWith(QLatin1String("nn.Module:")) ||
        name.startsWith(QLatin1String("<built-in")) || name.startsWith(QLatin1String("torch/")) ||
        name.startsWith(QLatin1String("<frozen")))
        return SliceRole::Python;
    return SliceRole::CpuOp;
}

bool isWaitFrame(const QString &name)
{
    if (sliceRole(name, false) != SliceRole::Python)
        return false;
    // The function: after "file.py(N): ", or the method of a built-in ("<built-in method
    // acquire of ...>", "<method 'get' of '_queue.SimpleQueue' objects>").
    static const QRegularExpression wait(
        QStringLiteral(R"((?:\): |<built-in (?:method|function) |<method ')_*)"
                       R"((wait|wait_for|_wait_for_tstate_lock|sleep|acquire|select|poll|epoll|)"
                       R"(join|get|recv|recv_into|accept|read)\b)"));
    return wait.match(name).hasMatch();
}

QString sliceRoleName(SliceRole role)
{
    switch (role) {
    case SliceRole::Compute:
        return QStringLiteral("compute");
    case SliceRole::Communication:
        return QStringLiteral("communication");
    case SliceRole::Copy:
        return QStringLiteral("copy");
    case SliceRole::CpuOp:
        return QStringLiteral("CPU op");
    case SliceRole::Python:
        return QStringLiteral("Python");
    case SliceRole::Annotation:
        return QStringLiteral("annotation");
    }
    return {};
}

bool isGpuAnnotationCategory(const QString &category)
{
    return category.contains(QLatin1String("annotation"));
}

void sortNestRows(std::vector<NestRow> &rows, const std::vector<size_t> &descents)
{
    sortRuns(rows, descents, nestsBefore);
}

void unseenStrings(const std::vector<NestRow> &rows, std::vector<char> &seen,
                   std::vector<StringId> &out)
{
    for (const NestRow &row : rows)
        for (const StringId id : {row.name, row.cat}) {
            if (id <= 0)
                continue;
            if (size_t(id) >= seen.size())
                seen.resize(std::max(size_t(id) + 1, 2 * seen.size()), 0);
            if (!seen[size_t(id)]) {
                seen[size_t(id)] = 1;
                out.push_back(id);
            }
        }
}

void nestRows(std::vector<NestRow> &rows, std::vector<int> &parent)
{
    std::vector<int> stack;
    parent.assign(rows.size(), -1);
    for (size_t i = 0; i < rows.size(); ++i) {
        while (!stack.empty() && rows[size_t(stack.back())].end <= rows[i].start)
            stack.pop_back();
        if (!stack.empty()) {
            parent[i] = stack.back();
            rows[size_t(stack.back())].leaf = false;
        }
        stack.push_back(int(i));
    }
}

} // namespace gml
