#pragma once

// A producer is a tool that writes traces (torch_npu's text export, its database export,
// PyTorch Kineto, ...). Everything Ringscope knows of one lives in its folder under
// core/producers/ and is reached through this interface: how its files are recognised (paths
// and content), how a path resolves to one rank's file and rank id, how the file is read (the
// JSON reader, or the producer's own), what role each track has (decided once at load, stored
// in the model), and its analysis extraction (analysis/producermodel.h). The registry
// (registry.h) lists them; adding a producer is one folder plus one line there
// (docs/producers.md).

#include "core/traceloader.h"
#include "core/trackrole.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

class QDir;
class QFileInfo;

namespace rs {

class Trace;
namespace analysis {
class ProducerModel;
}

// What the JSON reader noticed while reading, for content detection.
struct ContentClues {
    bool stringTimestamps = false; // "ts" written as a string (torch_npu writes ns digits)
};

// What a producer reads, said once: the help texts, the error for a path no producer reads,
// the file dialogs, the man page and the desktop's MIME types are made from it.
struct InputKind {
    std::string what;               // for people: "torch_npu run folder (*_ascend_pt)"
    std::vector<std::string> globs; // file names it opens ("*.pt.trace.json.gz"); none for a folder
    // The desktop's MIME type for those files (empty: none of its own, e.g. a plain *.json), its
    // comment, the type it refines, and XML matches of its content (<magic> children).
    std::string mimeType, mimeComment, mimeParent, mimeMagic;
    int mimeWeight = 0; // glob weight (0: the default)
    bool caseSensitive = false;
    // What its reader looks for inside a file of its format ("tables StringIds and ..."): the
    // error for a database no producer reads names it.
    std::string lookedFor;
};

// The kind of every slice and the steps (core/slicekind.h), as a producer classifies them.
struct SliceClasses {
    std::vector<SliceKind> kinds; // one per slice
    std::vector<StepMark> steps;  // sorted by event
};

// A link between two slices that the trace's flow events do not give, which the producer knows
// from other fields (Kineto: a GPU kernel and the runtime call with its correlation id).
struct ImpliedFlow {
    EventId from = 0, to = 0;
    std::uint64_t id = 0; // shown as the flow's id (the correlation id)
};
struct ImpliedFlows {
    std::string category; // the flows' category, as the producer's own flows name it
    std::string how;      // for the load's note: "by correlation id"
    std::vector<ImpliedFlow> links;
};

// One rank's input as a producer reads it.
struct SourceMatch {
    std::string file;        // the file its reader opens
    std::optional<int> rank; // when the folder or file says (profiler_info_N.json, ...)
    // Which of the file's ranks, for a file that holds several (parts()): the producer's own
    // selector (Nsight Systems: "pid 144"); empty: the file is one rank.
    std::string part = {};
};

class Producer {
public:
    virtual ~Producer() = default;

    // Registry key, unique and stable ("torch_npu", "torch_npu_db", "kineto", "other").
    virtual std::string_view id() const = 0;
    // Who wrote the trace, as reports name it (`info --json` "producer"). Two sources of one
    // tool share it: torch_npu's text and database exports are both "torch_npu".
    virtual std::string_view name() const { return id(); }
    // How its files are stored, as reports name it (`info --json` "format"): "json", "sqlite".
    virtual std::string_view format() const { return "json"; }

    // --- Paths ---------------------------------------------------------------------------
    // A file or folder a user gave that this producer reads (a run folder, its output folder,
    // the trace file itself): the file to open and the rank when the layout says. nullopt when
    // it is not this producer's.
    virtual std::optional<SourceMatch> resolve(const QFileInfo& path) const = 0;
    // A folder that is one rank's run (a job's discovery takes it whole and goes no deeper).
    virtual bool isRunFolder(const QDir& dir) const
    {
        (void)dir;
        return false;
    }
    // A file inside a job folder that is one rank's trace.
    virtual bool isRankFile(const QFileInfo& file) const
    {
        (void)file;
        return false;
    }
    // The ranks a resolved file holds: itself (the default), or one SourceMatch per rank with
    // its part set (a profiler that writes a whole node's processes into one file). Asked by
    // job discovery for every file it finds, so it reads no events.
    virtual std::vector<SourceMatch> parts(const SourceMatch& source) const { return {source}; }
    // Resident model bytes a file is projected to need before it is read (the job's budget).
    virtual std::uint64_t projectedModelBytes(const std::string& file) const;
    // The job's size as the run's files beside a trace say it (torch_npu's
    // profiler_metadata.json, where frameworks record it): for a rank summary, which has no trace.
    virtual std::optional<int> worldSizeBeside(const std::string& file) const
    {
        (void)file;
        return std::nullopt;
    }
    // What it reads, for people and desktops (InputKind).
    virtual std::vector<InputKind> inputs() const = 0;

    // --- Reading -------------------------------------------------------------------------
    // Reads one rank's file into a trace. The default is the JSON reader (streamed, parallel;
    // the producer of the result is then decided by content, recognises()).
    virtual LoadResult read(const SourceMatch& source, const LoadOptions& options,
                            LoadProgress* progress) const;
    // For a trace the JSON reader built: whether this producer wrote it. Asked in registry
    // order; the first that says yes is the trace's producer.
    virtual bool recognises(const Trace& trace, const ContentClues& clues) const
    {
        (void)trace;
        (void)clues;
        return false;
    }

    // --- Model ---------------------------------------------------------------------------
    // The role of every track (indexed by TrackId); called once when the trace is built.
    virtual std::vector<TrackRole> trackRoles(const Trace& trace) const = 0;
    // The kind of every slice and the training steps; called once when the trace is built,
    // after the roles are stored (Trace::role). Nothing outside the producer reads its
    // categories or step names again.
    virtual void classify(const Trace& trace, SliceClasses& out) const = 0;
    // Links the flow events do not give (ImpliedFlow), added to the model as flows: called once
    // when the trace is built, after classify. Cheap when the flows are whole.
    virtual ImpliedFlows impliedFlows(const Trace& trace) const
    {
        (void)trace;
        return {};
    }
    // What the run states beside its events (clock base, world size, devices); called once when
    // the trace is built, after classify.
    virtual RunFacts runFacts(const Trace& trace) const
    {
        (void)trace;
        return {};
    }

    // What `ringscope info` adds for a trace of this producer (an object of its own facts:
    // a Flight Recorder dump's version, groups and states); null for nothing.
    virtual nlohmann::json describe(const Trace& trace) const
    {
        (void)trace;
        return nullptr;
    }

    // --- Analysis ------------------------------------------------------------------------
    // Its collectives, copies, computing tasks and call-stack links.
    virtual const analysis::ProducerModel& analysis() const = 0;
};

} // namespace rs
