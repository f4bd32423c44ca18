#pragma once

// The producers Ringscope knows (list.h), and the questions asked of all of them: who reads
// a path, who wrote a JSON trace, which files and folders of a job are ranks.

#include "core/producers/producer.h"

#include <string>
#include <string_view>
#include <vector>

namespace rs::producers {

// Every producer, in list.h's order; the generic one is last.
const std::vector<const Producer*>& all();
// The producer with that id; the generic one for an id it does not know.
const Producer& byId(std::string_view id);
// The first producer with that name() ("torch_npu"): what a rank summary records.
const Producer& byName(std::string_view name);
// The producer for traces of unknown origin (every known convention tried).
const Producer& generic();
// Who wrote a trace the JSON reader built (the first that recognises it; else the generic one).
const Producer& recognise(const Trace& trace, const ContentClues& clues);

// Who reads a path a user gave, the file it opens and the rank the layout says; error set
// (naming the path) when it is no trace any producer reads.
struct Resolved {
    const Producer* producer = nullptr;
    SourceMatch source;
    std::string error;
};
Resolved resolve(const std::string& path);

// What the producers read, in list order: each InputKind's text for people (help texts, the
// error for a path no producer reads), and the file name patterns they open, without repeats
// (file dialogs).
std::vector<std::string> inputDescriptions();
std::vector<std::string> inputGlobs();
// inputDescriptions() as one sentence part: "A; B; or C".
std::string inputsSentence();

// A job folder's parts: a folder that is one rank's run, a file that is one rank's trace.
bool isRunFolder(const QDir& dir);
bool isRankFile(const QFileInfo& file);

} // namespace rs::producers
