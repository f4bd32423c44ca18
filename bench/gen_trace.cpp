// Writes synthetic traces: large Kineto-like / torch_npu-like files for the load benchmark.
#include "bench/tracegen_db.h"
#include "bench/tracegen_large.h"
#include "bench/tracegen_nsys.h"
#include "bench/tracegen_seed.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

int usage()
{
    std::fprintf(
        stderr,
        "usage: gen_trace --shape kineto|torch_npu --size SIZE --out FILE [--seed N] "
        "[--rank N]\n"
        "         SIZE like 100M or 1G; the file ends at the first step past it\n"
        "       gen_trace --shape torch_npu_db --rows N [--text] --out DIR [--seed N] [--rank N]\n"
        "       gen_trace --shape nsys --rows N --out DIR [--seed N] [--rank N]\n"
        "         torch_npu's database export: DIR/db/rankN_ascend_pt/.../\n"
        "         ascend_pytorch_profiler_N.db of about N rows (10M, 1M...); --text: also the\n"
        "         text export of the same run, DIR/text/rankN_ascend_pt/.../trace_view.json\n"
        "       gen_trace --seed-case [--ranks N] [--steps N] [--kineto|--db] --out DIR\n"
        "                 [--compute-ms X] [--allreduce-ms X] [--bad-steps I,J|none]\n"
        "                 [--write-ranks N] [--single-card] [--bad-ranks S=R[+R...],...]\n"
        "                 [--slow-kernel R:S:MS] [--late-launch R:S:MS] [--count-mismatch R:S]\n"
        "         the seed case as a job: DIR/rankN_ascend_pt/... (or rankN.pt.trace.json;\n"
        "         --db: torch_npu's database export, ascend_pytorch_profiler_N.db);\n"
        "         per step X ms of compute and an AllReduce of X ms (0: none), the 0-based\n"
        "         steps whose AllReduce input is misaligned (default 2,4), only ranks\n"
        "         0..N-1 written (the traces still say --ranks as the world size);\n"
        "         --single-card: 1 rank, no AllReduce; --bad-ranks 2=0,4=5+6: the ranks\n"
        "         that copy in each named 0-based step (a bad step; default rank 0);\n"
        "         --slow-kernel 3:1:50: rank 3's first kernel of step 1 runs 50 ms longer;\n"
        "         --late-launch 3:1:50: rank 3's host launches step 1's third kernel 50 ms\n"
        "         late (the device idles); the other ranks wait that long in the AllReduce;\n"
        "         --count-mismatch 3:1: rank 3's AllReduce of step 1 has half the elements\n"
        "       gen_trace --sample --out DIR\n"
        "         the bundled sample: DIR/sample_rank0.json and sample_rank1.json\n");
    return 2;
}

// The seed case in miniature for resources/samples: 2 ranks, 4 steps, 2 AllReduces with the
// extra Memcpy, torch_npu shape with stacks; small enough to ship in the binary.
int writeSample(const std::string& dir)
{
    rs::gen::SeedCaseOptions o;
    o.ranks = 2;
    o.steps = 4;
    o.badSteps = {1, 3};
    std::filesystem::create_directories(dir);
    for (int r = 0; r < o.ranks; ++r) {
        const std::string path =
            (std::filesystem::path(dir) / ("sample_rank" + std::to_string(r) + ".json")).string();
        const std::string text = rs::gen::seedCaseTrace(o, r);
        std::ofstream f(path, std::ios::binary);
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!f) {
            std::fprintf(stderr, "gen_trace: %s: write failed\n", path.c_str());
            return 1;
        }
        std::printf("%s: %zu bytes\n", path.c_str(), text.size());
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    rs::tracegen::LargeTraceOptions opt;
    rs::gen::SeedCaseOptions seed;
    bool seedCase = false, sample = false, singleCard = false, database = false, nsys = false;
    rs::tracegen::DbRunOptions db;
    std::string out;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--shape" && hasValue) {
            const std::string s = argv[++i];
            if (s == "kineto")
                opt.shape = rs::tracegen::Shape::Kineto;
            else if (s == "torch_npu")
                opt.shape = rs::tracegen::Shape::TorchNpu;
            else if (s == "torch_npu_db")
                database = true;
            else if (s == "nsys")
                nsys = true;
            else
                return usage();
        } else if (a == "--size" && hasValue) {
            opt.targetBytes = rs::tracegen::parseSize(argv[++i]);
            if (!opt.targetBytes) return usage();
        } else if (a == "--rows" && hasValue) {
            db.targetRows = rs::tracegen::parseSize(argv[++i]);
            if (!db.targetRows) return usage();
        } else if (a == "--text") {
            db.text = true;
        } else if (a == "--out" && hasValue) {
            out = argv[++i];
        } else if (a == "--seed" && hasValue) {
            opt.seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (a == "--rank" && hasValue) {
            opt.rank = std::atoi(argv[++i]);
        } else if (a == "--seed-case") {
            seedCase = true;
        } else if (a == "--sample") {
            sample = true;
        } else if (a == "--ranks" && hasValue) {
            seed.ranks = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--steps" && hasValue) {
            seed.steps = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--kineto") {
            seed.kineto = true;
        } else if (a == "--db") {
            seed.database = true;
        } else if ((a == "--compute-ms" || a == "--allreduce-ms") && hasValue) {
            const double ms = std::strtod(argv[++i], nullptr);
            if (!(ms >= 0) || ms > 1e7) return usage();
            (a == "--compute-ms" ? seed.computeNs : seed.allReduceNs) =
                static_cast<rs::TimeNs>(ms * 1e6 + 0.5);
        } else if (a == "--bad-steps" && hasValue) {
            seed.badSteps.clear();
            const std::string list = argv[++i];
            if (list != "none") {
                for (std::size_t p = 0; p <= list.size();) {
                    const std::size_t comma = std::min(list.find(',', p), list.size());
                    const std::string item = list.substr(p, comma - p);
                    if (item.empty() || item.find_first_not_of("0123456789") != item.npos)
                        return usage();
                    seed.badSteps.push_back(std::atoi(item.c_str()));
                    p = comma + 1;
                }
            }
        } else if (a == "--bad-ranks" && hasValue) {
            // "2=0,4=5+6": step 2 copied by rank 0, step 4 by ranks 5 and 6.
            const std::string list = argv[++i];
            for (std::size_t p = 0; p < list.size();) {
                const std::size_t comma = std::min(list.find(',', p), list.size());
                const std::string item = list.substr(p, comma - p);
                const std::size_t eq = item.find('=');
                if (eq == 0 || eq == item.npos || eq + 1 == item.size() ||
                    item.find_first_not_of("0123456789=+") != item.npos)
                    return usage();
                std::vector<int>& ranks = seed.badRanks[std::atoi(item.c_str())];
                for (std::size_t q = eq + 1; q <= item.size();) {
                    const std::size_t plus = std::min(item.find('+', q), item.size());
                    if (plus == q) return usage();
                    ranks.push_back(std::atoi(item.c_str() + q));
                    q = plus + 1;
                }
                p = comma + 1;
            }
        } else if ((a == "--slow-kernel" || a == "--late-launch") && hasValue) {
            // RANK:STEP:MS
            int r = -1, st = -1;
            double ms = 0;
            char tail = 0;
            if (std::sscanf(argv[++i], "%d:%d:%lf%c", &r, &st, &ms, &tail) != 3 || r < 0 ||
                st < 0 || !(ms > 0))
                return usage();
            auto& late = a == "--slow-kernel" ? seed.slowKernel : seed.lateLaunch;
            late.rank = r;
            late.step = st;
            late.ns = static_cast<rs::TimeNs>(ms * 1e6);
        } else if (a == "--count-mismatch" && hasValue) {
            // RANK:STEP
            int r = -1, st = -1;
            char tail = 0;
            if (std::sscanf(argv[++i], "%d:%d%c", &r, &st, &tail) != 2 || r < 0 || st < 0)
                return usage();
            seed.countMismatch.rank = r;
            seed.countMismatch.step = st;
        } else if (a == "--write-ranks" && hasValue) {
            seed.writeRanks = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--single-card") {
            singleCard = true;
        } else {
            return usage();
        }
    }
    if (out.empty()) return usage();
    if (sample) return writeSample(out);
    if (singleCard) {
        seed.ranks = 1;
        seed.allReduceNs = 0;
        seed.badSteps.clear();
        seed.badRanks.clear();
    }
    if (seedCase) {
        std::filesystem::create_directories(out);
        if (!rs::gen::writeSeedCaseJob(out, seed)) {
            std::fprintf(stderr, "gen_trace: cannot write the job under %s\n", out.c_str());
            return 1;
        }
        std::printf("%s: seed case, %d ranks, %d steps", out.c_str(), seed.ranks, seed.steps);
        if (seed.writeRanks > 0 && seed.writeRanks < seed.ranks)
            std::printf(" (ranks 0-%d written)", seed.writeRanks - 1);
        std::printf("\n");
        return 0;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (nsys) {
        rs::tracegen::NsysRunOptions n;
        n.targetRows = db.targetRows;
        n.seed = opt.seed;
        n.rank = opt.rank;
        rs::tracegen::NsysRunStats st;
        std::string error;
        if (!rs::tracegen::writeNsysRun(out, n, &st, &error)) {
            std::fprintf(stderr, "gen_trace: %s\n", error.c_str());
            return 1;
        }
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf(
            "%s: %llu rows (%llu kernels, %llu memcpy, %llu memset, %llu CUDA calls, "
            "%llu NVTX ranges), %llu steps, %llu collectives (%.1f s)\n",
            st.path.c_str(), static_cast<unsigned long long>(st.rows),
            static_cast<unsigned long long>(st.kernels), static_cast<unsigned long long>(st.copies),
            static_cast<unsigned long long>(st.sets), static_cast<unsigned long long>(st.calls),
            static_cast<unsigned long long>(st.ranges), static_cast<unsigned long long>(st.steps),
            static_cast<unsigned long long>(st.collectives), s);
        return 0;
    }
    if (database) {
        db.seed = opt.seed;
        db.rank = opt.rank;
        rs::tracegen::DbRunStats st;
        std::string error;
        if (!rs::tracegen::writeDbRun(out, db, &st, &error)) {
            std::fprintf(stderr, "gen_trace: %s\n", error.c_str());
            return 1;
        }
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s: %llu rows, %llu steps, %llu collectives (%.1f s)\n", st.dbPath.c_str(),
                    static_cast<unsigned long long>(st.rows),
                    static_cast<unsigned long long>(st.steps),
                    static_cast<unsigned long long>(st.collectives), s);
        if (!st.textPath.empty())
            std::printf("%s: %llu events, the text export of the same run\n", st.textPath.c_str(),
                        static_cast<unsigned long long>(st.events));
        return 0;
    }
    rs::tracegen::LargeTraceStats st;
    std::string error;
    if (!rs::tracegen::writeLargeTrace(out, opt, &st, &error)) {
        std::fprintf(stderr, "gen_trace: %s\n", error.c_str());
        return 1;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %llu bytes, %llu events, %llu steps, %llu collectives (%.1f s)\n", out.c_str(),
                static_cast<unsigned long long>(st.bytes),
                static_cast<unsigned long long>(st.events),
                static_cast<unsigned long long>(st.steps),
                static_cast<unsigned long long>(st.collectives), s);
    for (const auto& [ph, n] : st.phases)
        std::printf("  %s %llu\n", ph.c_str(), static_cast<unsigned long long>(n));
    return 0;
}
