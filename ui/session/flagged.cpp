#include "ui/session/flagged.h"

#include "core/timeconv.h"

#include <QCoreApplication>

#include <algorithm>

namespace rs::flagged {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("rs::flagged", text);
}

QString duration(TimeNs ns)
{
    return QString::fromStdString(formatDuration(ns));
}

} // namespace

Role roleOf(const Collective& c)
{
    if (c.anomalous) return Role::Cause;
    if (c.waiting) return Role::Waiting;
    if (c.unalignedCount > 0) return Role::Cause;
    return Role::None;
}

Role roleOf(const AnalysisReport& report, EventId e)
{
    const Collective* c = e != kNone ? report.collectiveOf(e) : nullptr;
    return c && c->event == e ? roleOf(*c) : Role::None;
}

Counts count(const AnalysisReport& report)
{
    Counts n;
    for (const Collective& c : report.collectives) {
        const Role r = roleOf(c);
        n.causes += r == Role::Cause;
        n.waiting += r == Role::Waiting;
    }
    return n;
}

QString countText(const Counts& c)
{
    QStringList parts;
    if (c.causes > 0) parts << (c.causes == 1 ? tr("1 cause") : tr("%1 causes").arg(c.causes));
    if (c.waiting > 0) parts << tr("%1 waiting").arg(c.waiting);
    return parts.isEmpty() ? tr("none flagged") : parts.join(QStringLiteral(" · "));
}

int findingOf(const AnalysisReport& report, EventId e)
{
    if (e == kNone) return -1;
    const auto& fs = report.findings;
    auto has = [&](const Finding& f, EventId x) {
        return std::find(f.events.begin(), f.events.end(), x) != f.events.end();
    };
    // The rank's own finding about its op carries the call stack to the frame to change.
    for (std::size_t i = 0; i < fs.size(); ++i)
        if (!fs[i].events.empty() && fs[i].events.front() == e && !fs[i].stack.empty() &&
            fs[i].severity != Severity::Info)
            return int(i);
    for (std::size_t i = 0; i < fs.size(); ++i)
        if (fs[i].rule.rfind("job-", 0) == 0 && has(fs[i], e)) return int(i);
    for (std::size_t i = 0; i < fs.size(); ++i)
        if (!fs[i].events.empty() && fs[i].events.front() == e) return int(i);
    for (std::size_t i = 0; i < fs.size(); ++i)
        if (has(fs[i], e)) return int(i);
    const Collective* c = report.collectiveOf(e);
    // A task of a flagged collective: its collective's finding.
    if (c && c->event != e) return findingOf(report, c->event);
    // A collective whose findings list its tasks (unaligned transfers): the most severe.
    if (c)
        for (std::size_t i = 0; i < fs.size(); ++i)
            for (EventId x : fs[i].events) {
                const Collective* of = x != e ? report.collectiveOf(x) : nullptr;
                if (of == c) return int(i);
            }
    return -1;
}

QString describe(const Collective& c, std::optional<int> rank, const CrossRankCollective* instance)
{
    const QString who = rank ? tr("rank %1").arg(*rank) : tr("this rank");
    switch (roleOf(c)) {
    case Role::Cause:
        if (c.anomalous) {
            TimeNs extra = 0;
            for (const InternalCopy& cp : c.copies)
                if (cp.extra) extra += cp.dur;
            if (extra == 0) extra = c.extraMemcpyNs;
            return extra > 0 ? tr("%1 copies its input (extra Memcpy %2)").arg(who, duration(extra))
                             : tr("%1 copies its input").arg(who);
        }
        return c.unalignedCount == 1
                   ? tr("%1 sends 1 unaligned transfer").arg(who)
                   : tr("%1 sends %2 unaligned transfers").arg(who).arg(c.unalignedCount);
    case Role::Waiting: {
        const TimeNs wait = c.waitNs > 0 ? c.waitNs : instance ? instance->delayNs : 0;
        const QString waits =
            wait > 0 ? tr("%1 waits %2").arg(who, duration(wait)) : tr("%1 waits").arg(who);
        if (instance && instance->delayingRank && (!rank || *instance->delayingRank != *rank))
            return tr("%1 for rank %2").arg(waits).arg(*instance->delayingRank);
        return tr("%1 for a slower rank").arg(waits);
    }
    case Role::None:
        break;
    }
    return {};
}

QString fixMark(const Finding& f)
{
    if (f.rule == "collective-extra-memcpy" || f.rule == "unaligned-address" ||
        f.rule == "unaligned-transfer-size" || f.rule == "collective-internal-memcpy")
        return tr("allocate aligned here");
    return {};
}

} // namespace rs::flagged
