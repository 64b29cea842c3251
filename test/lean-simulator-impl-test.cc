/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * LeanSimulatorImpl: the same events in the same order as ns-3's DefaultSimulatorImpl (a random
 * script of Schedule, ScheduleWithContext, ScheduleNow, ScheduleDestroy, Cancel, Remove,
 * IsExpired, GetDelayLeft and Stop with many equal time stamps, run on both engines, must leave
 * the same trace), negative delays refused, and the study program runs on it in one process
 * unless --SimulatorImplementationType is given, with the same results.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/global-value.h"
#include "ns3/lean-simulator-impl.h"
#include "ns3/make-event.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <sstream>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// A random script of simulator calls; every call and every event's view of the simulator is
/// written to a trace.
class Script
{
  public:
    /// \param seed the script's random seed
    explicit Script(uint32_t seed)
        : m_rng(seed)
    {
    }

    /// \brief Start: a few roots, a destroy event, a stop that the run resumes after.
    void Start()
    {
        for (uint32_t i = 0; i < 8; ++i)
        {
            Spawn(i);
        }
        m_destroy = Simulator::ScheduleDestroy(&Script::Destroyed, this, 1);
        EventId cancelled = Simulator::ScheduleDestroy(&Script::Destroyed, this, 2);
        Simulator::ScheduleDestroy(&Script::Destroyed, this, 3);
        Simulator::Cancel(cancelled);
        Simulator::Stop(NanoSeconds(40));
    }

    /// \return the trace so far
    std::string Trace() const
    {
        return m_trace.str();
    }

    /// \return the events run so far
    uint32_t Runs() const
    {
        return m_runs;
    }

  private:
    /// \brief Schedule one event in one of the three ways, at a delay that often ties.
    /// \param label the event's label
    void Spawn(uint32_t label)
    {
        const Time delay = NanoSeconds(m_rng() % 10);
        EventId id;
        switch (m_rng() % 3)
        {
        case 0:
            id = Simulator::Schedule(delay, &Script::Fire, this, label);
            break;
        case 1:
            Simulator::ScheduleWithContext(m_rng() % 5, delay, &Script::Fire, this, label);
            break;
        default:
            id = Simulator::ScheduleNow(&Script::Fire, this, label);
            break;
        }
        if (!id.IsExpired())
        {
            m_pending.push_back(id);
        }
    }

    /// \brief An event: record the simulator's view, then cancel, remove and spawn at random.
    /// \param label the event's label
    void Fire(uint32_t label)
    {
        ++m_runs;
        m_trace << label << '@' << Simulator::Now().GetTimeStep() << '/' << Simulator::GetContext()
                << " n" << Simulator::GetEventCount();
        if (!m_pending.empty())
        {
            const size_t i = m_rng() % m_pending.size();
            EventId id = m_pending[i];
            m_trace << " x" << id.IsExpired() << ',' << Simulator::GetDelayLeft(id).GetTimeStep();
            switch (m_rng() % 4)
            {
            case 0:
                Simulator::Cancel(id);
                m_trace << " c";
                break;
            case 1:
                Simulator::Remove(id);
                m_trace << " r";
                break;
            default:
                break;
            }
            m_pending.erase(m_pending.begin() + i);
        }
        m_trace << " d" << Simulator::IsExpired(m_destroy) << '\n';
        if (m_label < 3000)
        {
            const uint32_t children = 1 + m_rng() % 2;
            for (uint32_t c = 0; c < children; ++c)
            {
                Spawn(++m_label);
            }
        }
    }

    /// \brief A destroy event.
    /// \param which its number
    void Destroyed(uint32_t which)
    {
        m_trace << "destroy " << which << " at " << Simulator::Now().GetTimeStep() << '\n';
    }

    std::mt19937 m_rng;             //!< the script's choices
    std::ostringstream m_trace;     //!< what happened
    std::vector<EventId> m_pending; //!< events that may be cancelled or removed
    EventId m_destroy;              //!< a destroy event
    uint32_t m_label{7};            //!< the last label given
    uint32_t m_runs{0};             //!< events run
};

/**
 * \brief Run the script on one engine.
 * \param engine the SimulatorImplementationType
 * \param seed the script's seed
 * \param[out] used the engine that ran it
 * \return the trace
 */
std::string
RunScript(const std::string& engine, uint32_t seed, std::string& used)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue(engine));
    Script s(seed);
    Simulator::ScheduleNow(&Script::Start, &s);
    Simulator::Run(); // stops at 40 ns
    const std::string first = s.Trace();
    std::string trace = first + "stopped at " + std::to_string(Simulator::Now().GetTimeStep()) +
                        " finished " + std::to_string(Simulator::IsFinished()) + '\n';
    Simulator::Run(); // the rest
    used = Simulator::GetImplementation()->GetInstanceTypeId().GetName();
    const std::string all = s.Trace();
    trace += all.substr(first.size()) + "end at " + std::to_string(Simulator::Now().GetTimeStep()) +
             " events " + std::to_string(Simulator::GetEventCount()) + " runs " +
             std::to_string(s.Runs()) + '\n';
    Simulator::Destroy();
    trace += s.Trace().substr(all.size());
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    return trace;
}

/// A function to schedule.
void
Nothing()
{
}

const std::string SIM = SimProgram(); //!< the study program ("" in-tree)

} // namespace

TEST_F(Ns3Fixture, LeanSimulatorImplRunsDefaultSimulatorImplsEventsInItsOrder)
{
    for (uint32_t seed : {1u, 2u, 3u})
    {
        std::string usedDefault;
        std::string usedLean;
        const std::string a = RunScript("ns3::DefaultSimulatorImpl", seed, usedDefault);
        const std::string b = RunScript("ns3::LeanSimulatorImpl", seed, usedLean);
        EXPECT_EQ(usedDefault, "ns3::DefaultSimulatorImpl");
        EXPECT_EQ(usedLean, "ns3::LeanSimulatorImpl");
        // a script that did something: thousands of events, cancels, removes, both stops
        EXPECT_GT(std::count(a.begin(), a.end(), '\n'), 2000) << "seed " << seed;
        EXPECT_NE(a.find(" c d"), std::string::npos);
        EXPECT_NE(a.find(" r d"), std::string::npos);
        // (IsFinished: the stop flag stays set until the next Run), and the run resumed
        EXPECT_NE(a.find("stopped at 40 finished 1"), std::string::npos);
        EXPECT_NE(a.find('@', a.find("stopped at 40")), std::string::npos);
        EXPECT_NE(a.find("destroy 1"), std::string::npos);
        EXPECT_EQ(a.find("destroy 2"), std::string::npos); // (cancelled)
        EXPECT_EQ(a, b) << "seed " << seed;
    }
}

TEST_F(Ns3Fixture, LeanSimulatorImplRefusesANegativeDelay)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::LeanSimulatorImpl"));
    EXPECT_DEATH(Simulator::Schedule(NanoSeconds(-1), &Nothing), "negative delay");
    EXPECT_DEATH(Simulator::ScheduleWithContext(1, NanoSeconds(-1), &Nothing), "negative delay");
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
}

/// Appends its label to a trace when it runs.
class Label : public EventImpl
{
  public:
    /**
     * \param trace the trace
     * \param label the label
     */
    Label(std::string* trace, char label)
        : m_trace(trace),
          m_label(label)
    {
    }

  protected:
    void Notify() override
    {
        *m_trace += m_label;
    }

  private:
    std::string* m_trace; //!< the trace
    char m_label;         //!< the label
};

/**
 * \brief Events a..e at time 10 scheduled at time 0 in that order, on one engine: b and d are
 *        inserted by an event at time 5 with keys reserved at time 0 (in their places), and c's
 *        reserved key is never inserted; then an event of time 20 that inserts a key reserved
 *        at time 15 for time 30 around others.
 * \param engine SimulatorImplementationType
 * \param scheduler SchedulerType
 * \param deferred set to whether the engine deferred (GetDeferringEngine was not null)
 * \return the order in which the events ran
 */
std::string
RunReserved(const std::string& engine, const std::string& scheduler, bool& deferred)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue(engine));
    GlobalValue::Bind("SchedulerType", StringValue(scheduler));
    std::string trace;
    auto label = [&trace](char c) { return new Label(&trace, c); }; // (one reference: ours)
    LeanSimulatorImpl* lean = LeanSimulatorImpl::GetDeferringEngine();
    deferred = lean != nullptr;
    Simulator::ScheduleWithContext(1, NanoSeconds(10), label('a'));
    Scheduler::EventKey b;
    Scheduler::EventKey d;
    if (lean)
    {
        b = lean->ReserveKey(10, 1);
        lean->ReserveKey(10, 1); // c: never inserted (it would have done nothing)
        Simulator::ScheduleWithContext(1, NanoSeconds(10), label('x'));
        d = lean->ReserveKey(10, 1);
        Simulator::Schedule(NanoSeconds(5), [lean, b, d, label]() {
            EXPECT_FALSE(lean->HasPassed(b));
            lean->InsertReserved(d, label('d'));
            lean->InsertReserved(b, label('b'));
        });
    }
    else
    {
        Simulator::ScheduleWithContext(1, NanoSeconds(10), label('b'));
        Simulator::ScheduleWithContext(1, NanoSeconds(10), label('c')); // (as if doing nothing)
        Simulator::ScheduleWithContext(1, NanoSeconds(10), label('x'));
        Simulator::ScheduleWithContext(1, NanoSeconds(10), label('d'));
        Simulator::Schedule(NanoSeconds(5), []() {}); // (the uid it takes)
    }
    Simulator::ScheduleWithContext(1, NanoSeconds(10), label('e'));
    Simulator::Schedule(NanoSeconds(15), [&trace, lean, b, label]() {
        if (lean)
        {
            EXPECT_TRUE(lean->HasPassed(b));
            const Scheduler::EventKey f = lean->ReserveKey(15, 0);
            Simulator::Schedule(NanoSeconds(15), label('g'));
            Simulator::Schedule(NanoSeconds(5), [lean, f, b, label]() {
                lean->InsertReserved(f, label('f'));
                EXPECT_DEATH(lean->InsertReserved(b, label('z')), "has passed");
            });
        }
        else
        {
            Simulator::Schedule(NanoSeconds(15), label('f'));
            Simulator::Schedule(NanoSeconds(15), label('g'));
            Simulator::Schedule(NanoSeconds(5), []() {});
        }
        trace += '|';
    });
    Simulator::Run();
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
    return trace;
}

TEST_F(Ns3Fixture, AnEventInsertedWithAReservedKeyRunsWhereItWouldHaveRun)
{
    bool deferred = true;
    EXPECT_EQ(RunReserved("ns3::DefaultSimulatorImpl", "ns3::MapScheduler", deferred), "abcxde|fg");
    EXPECT_FALSE(deferred); // (ns-3's engine: no reserved keys)
    for (const char* scheduler :
         {"ns3::MapScheduler", "ns3::FlatHeapScheduler", "ns3::HeapScheduler"})
    {
        EXPECT_EQ(RunReserved("ns3::LeanSimulatorImpl", scheduler, deferred), "abxde|fg")
            << scheduler;
        EXPECT_TRUE(deferred) << scheduler;
    }
    // its order of simultaneous events is not the keys': nothing may be deferred
    RunReserved("ns3::LeanSimulatorImpl", "ns3::PartitionIndependentScheduler", deferred);
    EXPECT_FALSE(deferred);
}

TEST_F(Ns3Fixture, TheFastCallsAreTheSimulatorsOnEveryEngine)
{
    for (const char* engine : {"ns3::DefaultSimulatorImpl", "ns3::LeanSimulatorImpl"})
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(engine));
        const bool lean = std::string(engine) == "ns3::LeanSimulatorImpl";
        EXPECT_EQ(LeanSimulatorImpl::Running(), nullptr) << "before the run";
        std::vector<std::string> seen;
        auto check = [&seen, lean](const std::string& what) {
            EXPECT_EQ(LeanSimulatorImpl::Running() != nullptr, lean) << what;
            EXPECT_EQ(LeanSimulatorImpl::FastNow(), Simulator::Now()) << what;
            EXPECT_EQ(LeanSimulatorImpl::FastContext(), Simulator::GetContext()) << what;
            seen.push_back(what + "@" + std::to_string(Simulator::Now().GetTimeStep()) + "/" +
                           std::to_string(Simulator::GetContext()));
        };
        Simulator::ScheduleWithContext(7, NanoSeconds(3), [&check]() {
            check("a");
            // scheduled the fast way: the same key as Simulator::ScheduleWithContext's
            LeanSimulatorImpl::FastScheduleWithContext(9, NanoSeconds(2), MakeEvent([&check]() {
                                                           check("b");
                                                       }));
            Simulator::ScheduleWithContext(9, NanoSeconds(2), [&check]() { check("c"); });
        });
        // FastIsExpired: the same answer as EventId::IsExpired for an event pending, running,
        // cancelled, run, at the running event's time before and after it, a destroy event
        // and an empty EventId
        std::vector<std::pair<std::string, EventId>> ids;
        uint32_t compared = 0;
        auto compare = [&ids, &compared](const std::string& when) {
            for (const auto& [name, id] : ids)
            {
                EXPECT_EQ(LeanSimulatorImpl::FastIsExpired(id), id.IsExpired())
                    << name << " " << when;
                ++compared;
            }
        };
        ids.emplace_back("empty", EventId());
        ids.emplace_back("destroy", Simulator::ScheduleDestroy([]() {}));
        ids.emplace_back("early", Simulator::Schedule(NanoSeconds(1), []() {}));
        ids.emplace_back("cancelled", Simulator::Schedule(NanoSeconds(20), []() {}));
        ids.back().second.Cancel();
        ids.emplace_back("before", Simulator::Schedule(NanoSeconds(10), []() {}));
        ids.emplace_back("running", Simulator::Schedule(NanoSeconds(10), [&compare]() {
                             compare("while it runs");
                         }));
        ids.emplace_back("after", Simulator::Schedule(NanoSeconds(10), []() {}));
        ids.emplace_back("late", Simulator::Schedule(NanoSeconds(30), []() {}));
        compare("before the run");
        Simulator::Schedule(NanoSeconds(15), [&compare]() { compare("between"); });
        Simulator::Run();
        compare("after the run");
        EXPECT_EQ(compared, 4u * ids.size());
        EXPECT_EQ(LeanSimulatorImpl::Running(), nullptr) << "after the run";
        EXPECT_EQ(seen, (std::vector<std::string>{"a@3/7", "b@5/9", "c@5/9"})) << engine;
        Simulator::Destroy();
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
}

TEST_F(Ns3Fixture, StudyProgramRunsOnLeanSimulatorImplUnlessAnEngineIsGiven)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "the study program is not built";
    }
    auto run = [](const std::string& name, const std::string& extra) {
        return RunStudyAllReduceInto(ScratchDir() + "lean-" + name, extra);
    };
    const std::string lean = run("default", "");
    const std::string def = run("def", "--SimulatorImplementationType=ns3::DefaultSimulatorImpl");
    // summary.json names the engine that ran (the simulator's own type)
    EXPECT_NE(Slurp(lean + "/summary.json").find("\"engine\": \"ns3::LeanSimulatorImpl\""),
              std::string::npos);
    EXPECT_NE(Slurp(def + "/summary.json").find("\"engine\": \"ns3::DefaultSimulatorImpl\""),
              std::string::npos);
    // the same simulation either way
    for (const char* f : {"collectives.csv", "flows.csv", "queues.csv", "links.csv", "ports.csv"})
    {
        const std::string a = Slurp(lean + "/" + f);
        EXPECT_FALSE(a.empty()) << f;
        EXPECT_EQ(a, Slurp(def + "/" + f)) << f;
    }
    std::system(("rm -rf " + lean + " " + def + " " + lean + ".log " + def + ".log").c_str());
}
