#pragma once

// Slice classification shared by the producers (Producer::classify): a rule asked once per
// distinct (track role, category, name), and the conventions of PyTorch's profilers' Chrome
// traces, which the torch_npu, Kineto and generic producers share.

#include "core/producers/producer.h"

#include <functional>
#include <optional>
#include <string_view>

namespace rs::producers {

// The kind of a slice from its track's role, category and name. Called once per distinct
// triple, so it may look at the strings at leisure.
using KindRule = std::function<SliceKind(TrackRole role, StrId cat, StrId name)>;
// The step number of a Step slice's name (nullopt: the slice is no step after all).
using StepRule = std::function<std::optional<int>(std::string_view name)>;

// Fills out.kinds (one per slice) with rule and out.steps (by event) with step for each slice
// rule calls a Step. Costs: one lookup a slice; the rule once per distinct triple.
void classifySlices(const Trace& trace, const KindRule& rule, const StepRule& step,
                    SliceClasses& out);

// "ProfilerStep#N": the step PyTorch's profiler marks (torch.profiler's schedule, Kineto and
// torch_npu alike).
std::optional<int> profilerStep(std::string_view name);

// The conventions of PyTorch's profilers' Chrome traces: Kineto's categories (kernel,
// gpu_memcpy, cpu_op, cuda_runtime, python_function...), torch_npu's layers by track role
// (Ascend device tasks, HCCL ops and their tasks, CANN calls), ProfilerStep#N on a host thread.
class ChromeTraceKinds {
public:
    explicit ChromeTraceKinds(const Trace& trace);
    SliceKind operator()(TrackRole role, StrId cat, StrId name) const;
    void classify(SliceClasses& out) const;

private:
    const Trace& m_trace;
    // Categories by StrId (kNone when absent).
    StrId m_kernel[2], m_copy[2], m_set[2], m_gpuAnno, m_runtime, m_driver, m_py, m_cpuOp, m_anno,
        m_enqueue, m_dequeue;
    // No framework op category at all (a trace of unknown origin): a host slice is an op.
    bool m_noOpCategories = false;
};

} // namespace rs::producers
