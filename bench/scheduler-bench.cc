/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * scheduler-bench: the hold model on ns-3 event schedulers, without a simulation around them.
 * N events are queued; then every step removes the next event and inserts one at its time plus
 * an increment (the hold operation), M steps in all. CPU nanoseconds per hold for each
 * scheduler, and the ratio to the first one. Increments:
 *  - exp: exponential, mean 1 us;
 *  - fabric: like ring-bench, whose NICs re-arm a 1 ms retransmission timer on every ACK (the
 *    old timer cancelled, not removed, so it stays queued): every hold inserts one event
 *    uniform in 0..2 us ahead, and with probability 0.3 another one 1 ms ahead. The far events
 *    pile up as in ring-bench (at k = 8, 123 k of its 131 k queued events are 0.9..1 ms
 *    ahead when the queue reaches 131 k; its run ends after 107 us, before any of them).
 * Every scheduler gets the same sequence and must return the same events in the same order (a
 * checksum of the uids is compared). The events are inserted outside any event (time 0, no
 * context), so PartitionIndependentScheduler's order (pis; mappis: the std::map implementation
 * it replaced, bench/map-partition-independent-scheduler.h) is the uid order here too; its
 * insert asks the simulator for the time and context, as in a simulation (an empty
 * Simulator::Run() first ends ns-3's marking of Time objects, which only a set-up pays).
 *
 *   ./build/ait-scheduler-bench --n=8192 --steps=1500000 --dist=fabric --schedulers=map,heap
 *   ./build/ait-scheduler-bench --n=131072 --steps=4000000 --dist=exp
 *   ./build/ait-scheduler-bench --schedulers=map,heap,mappis,pis
 */

#include "../examples/example-command-line.h"
#include "map-partition-independent-scheduler.h"

#include "ns3/core-module.h"
#include "ns3/flat-heap-scheduler.h"
#include "ns3/partition-independent-scheduler.h"

#include <cstdint>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// \return CPU seconds used by this process so far
double
CpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// An event that is never run.
class Dummy : public EventImpl
{
  protected:
    void Notify() override
    {
    }
};

/// The increments of the hold model.
class Increments
{
  public:
    /**
     * \param fabric the fabric distribution (else exponential)
     * \param seed RNG seed
     */
    Increments(bool fabric, uint32_t seed)
        : m_fabric(fabric),
          m_rng(seed)
    {
    }

    /// \return the next increment, ns
    uint64_t Next()
    {
        if (m_fabric)
        {
            return uint64_t(m_u(m_rng) * 2000);
        }
        return uint64_t(m_exp(m_rng) * 1000);
    }

    /// \return true if this hold also inserts a far event (fabric)
    bool Far()
    {
        return m_fabric && m_u(m_rng) < 0.3;
    }

  private:
    bool m_fabric;                                        //!< fabric, else exponential
    std::mt19937_64 m_rng;                                //!< generator
    std::uniform_real_distribution<double> m_u{0.0, 1.0}; //!< uniform
    std::exponential_distribution<double> m_exp{1.0};     //!< exponential, mean 1
};

/**
 * \brief Run the hold model on one scheduler.
 * \param type scheduler TypeId name
 * \param n queued events
 * \param steps hold operations
 * \param fabric the fabric distribution
 * \param checksum out: a hash of the uids removed, in order
 * \return CPU ns per hold operation
 */
double
Hold(const std::string& type, uint32_t n, uint64_t steps, bool fabric, uint64_t& checksum)
{
    ObjectFactory f(type);
    Ptr<Scheduler> s = f.Create<Scheduler>();
    Dummy dummy;
    Increments inc(fabric, 42);
    uint32_t uid = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        Scheduler::Event ev;
        ev.impl = &dummy;
        ev.key.m_ts = inc.Next();
        ev.key.m_uid = uid++;
        ev.key.m_context = 0;
        s->Insert(ev);
    }
    checksum = 0;
    const double c0 = CpuSeconds();
    for (uint64_t i = 0; i < steps; ++i)
    {
        const Scheduler::Event next = s->RemoveNext();
        checksum = checksum * 1000003 + next.key.m_uid;
        Scheduler::Event ev;
        ev.impl = &dummy;
        ev.key.m_ts = next.key.m_ts + inc.Next();
        ev.key.m_uid = uid++;
        ev.key.m_context = 0;
        s->Insert(ev);
        if (inc.Far())
        {
            ev.key.m_ts = next.key.m_ts + 1000000;
            ev.key.m_uid = uid++;
            s->Insert(ev);
        }
    }
    const double c1 = CpuSeconds();
    while (!s->IsEmpty())
    {
        s->RemoveNext();
    }
    return (c1 - c0) / steps * 1e9;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t n = 8192;
    uint64_t steps = 1500000;
    std::string dist = "fabric";
    std::string list = "map,heap";
    uint32_t repeat = 3;
    aitexample::ExampleCommandLine cmd(__FILE__, "scheduler-bench");
    cmd.AddValue("n", "events queued (1 .. 2^26)", n, 1, 1u << 26);
    cmd.AddRenamed("N", "n");
    cmd.AddValue("steps", "hold operations per run (1 .. 2^34)", steps, 1, uint64_t(1) << 34);
    cmd.AddValue("dist", "increments: fabric or exp", dist);
    cmd.AddValue("schedulers",
                 "comma-separated: map, heap, pis, mappis or Scheduler TypeId names",
                 list);
    cmd.AddValue("repeat",
                 "runs per scheduler, interleaved (the fastest is shown)",
                 repeat,
                 1,
                 100);
    cmd.Owns("SchedulerType", "schedulers");
    cmd.AddOldSpellings({"Steps", "Dist", "Schedulers", "Repeat"});
    cmd.Parse(argc, argv);
    FlatHeapScheduler::GetTypeId(); // links the module's library in (its TypeIds registered)
    // every value is checked before anything is built
    cmd.OneOf("dist", dist, {"fabric", "exp"});
    std::vector<std::string> types;
    std::istringstream in(list);
    std::string item;
    bool known = true;
    while (std::getline(in, item, ','))
    {
        const std::string type =
            item == "map"      ? "ns3::MapScheduler"
            : item == "heap"   ? "ns3::FlatHeapScheduler"
            : item == "pis"    ? PartitionIndependentScheduler::GetTypeId().GetName()
            : item == "mappis" ? bench::MapPartitionIndependentScheduler::GetTypeId().GetName()
                               : item;
        TypeId tid;
        known = known && TypeId::LookupByNameFailSafe(type, &tid) &&
                tid.IsChildOf(Scheduler::GetTypeId()) && tid.HasConstructor();
        types.push_back(type);
    }
    cmd.Require("schedulers",
                known && !types.empty(),
                "a comma-separated list of map, heap, pis, mappis or ns3::Scheduler TypeId "
                "names");
    cmd.Checked();

    Simulator::Run(); // nothing to run: ends the marking of Time objects (see above)
    std::vector<double> best(types.size(), 0);
    std::vector<uint64_t> sums(types.size(), 0);
    for (uint32_t r = 0; r < repeat; ++r)
    {
        for (size_t t = 0; t < types.size(); ++t)
        {
            const double ns = Hold(types[t], n, steps, dist == "fabric", sums[t]);
            best[t] = best[t] == 0 ? ns : std::min(best[t], ns);
        }
    }
    std::cout << "scheduler-bench: hold model, " << n << " events queued, " << steps
              << " holds, increments " << dist << ", fastest of " << repeat << std::endl;
    int status = 0;
    for (size_t t = 0; t < types.size(); ++t)
    {
        std::cout << std::left << std::setw(46) << types[t] << std::right << std::fixed
                  << std::setprecision(1) << std::setw(8) << best[t] << " ns/hold  x"
                  << std::setprecision(3) << best[t] / best[0]
                  << (sums[t] == sums[0] ? "" : "  MISMATCH: other events or order") << std::endl;
        status |= sums[t] != sums[0];
    }
    return status;
}
