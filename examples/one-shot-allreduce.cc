/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * one-shot-allreduce: a collective algorithm written outside the module, as a researcher would.
 *
 * OneShotAllReduce (below) is an ns3::CollectiveAlgorithm subclass defined in this script: every
 * rank writes its whole buffer of S bytes to every other rank at once and reduces what it
 * receives locally (reductions take no time). One step instead of the ring's 2(n-1): faster for
 * small messages, but every NIC injects (n-1) S bytes instead of 2(n-1)/n S, so the ring wins
 * for large ones. The communicator picks it by TypeId name, like a TcpCongestionOps:
 *
 *   comm->SetAttribute("Algorithm", StringValue("OneShotAllReduce"));
 *
 * The program runs the same all-reduces with Ring and with OneShotAllReduce on a k=4 fat-tree
 * and checks (exit 1 if not): every rank received exactly (n-1) S bytes from the one-shot
 * algorithm; no one-shot all-reduce beats its bound (n-1) S / payload rate; the one-shot is
 * faster than the ring at the smallest size and slower at the largest.
 *
 *   ./one-shot-allreduce [--ranks=8] [--sizes=4096,4194304]
 */
#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"

#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

/**
 * \brief One-shot all-reduce: every rank writes its buffer to every other rank at once.
 */
class OneShotAllReduce : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("OneShotAllReduce")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("AiTrainingExamples")
                                .AddConstructor<OneShotAllReduce>();
        return tid;
    }

    std::string GetName() const override
    {
        return "OneShot";
    }

    bool Supports(Communicator::Kind kind) const override
    {
        return kind == Communicator::ALL_REDUCE; // the other kinds run with the ring
    }

    void Begin(const Communicator::Op& op) override
    {
        const uint32_t n = m_comm->GetNRanks();
        if (m_tx.empty())
        {
            // one connection per ordered pair, made at the first use
            m_tx.resize(n, std::vector<Ptr<RdmaQueuePair>>(n));
            m_received.assign(n, 0);
            for (uint32_t a = 0; a < n; ++a)
            {
                for (uint32_t b = 0; b < n; ++b)
                {
                    if (a == b)
                    {
                        continue;
                    }
                    const uint16_t sport = 49152 + (a * 97 + b * 13) % 16384;
                    auto [x, y] = m_comm->Connect(a, b, sport);
                    y->SetReceiveCompletionCallback(
                        MakeCallback(&OneShotAllReduce::OnReceive, this, b));
                    m_tx[a][b] = x;
                }
            }
        }
        m_left.assign(n, uint64_t(n - 1) * op.bytes);
        m_comm->ExpectLanes(n); // one lane per rank: done when it has everyone's buffer
        for (uint32_t a = 0; a < n; ++a)
        {
            for (uint32_t i = 1; i < n && m_comm->IsLocal(a); ++i)
            {
                const uint32_t b = (a + i) % n;
                for (uint64_t left = op.bytes; left > 0;)
                {
                    const uint64_t chunk = std::min(left, m_comm->GetChunkBytes());
                    m_tx[a][b]->PostSend(chunk);
                    left -= chunk;
                }
            }
        }
    }

    /**
     * \param rank a rank
     * \return the bytes it received from this algorithm so far
     */
    uint64_t GetReceived(uint32_t rank) const
    {
        return m_received.at(rank);
    }

  private:
    /**
     * \brief A chunk arrived at a rank (one call per RDMA message).
     * \param rank receiving rank
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnReceive(uint32_t rank, uint64_t id, uint64_t bytes, Time first, Time now)
    {
        m_received[rank] += bytes;
        m_left[rank] -= bytes;
        if (m_left[rank] == 0)
        {
            m_comm->LaneDone(rank);
        }
    }

    std::vector<std::vector<Ptr<RdmaQueuePair>>> m_tx; //!< [src][dst]
    std::vector<uint64_t> m_left;                      //!< per rank: bytes still to arrive
    std::vector<uint64_t> m_received;                  //!< per rank: bytes received in all
};

NS_OBJECT_ENSURE_REGISTERED(OneShotAllReduce);

namespace
{

/**
 * \brief Run the all-reduces with one algorithm.
 * \param algorithm the Communicator's Algorithm
 * \param ranks ranks
 * \param sizes all-reduce sizes
 * \param [out] received per rank, bytes the one-shot algorithm received (if it ran)
 * \param [out] linkBps the link rate
 * \return the time of each all-reduce (s), empty if not all completed
 */
std::vector<double>
Run(const std::string& algorithm,
    uint32_t ranks,
    const std::vector<uint64_t>& sizes,
    std::vector<uint64_t>* received,
    double* linkBps)
{
    FatTreeHelper fabric(4);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    nics.resize(ranks);
    *linkBps = fabric.GetLinkRate(0).GetBitRate();
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Algorithm", StringValue(algorithm));
    comm->Setup(nics);
    for (uint64_t s : sizes)
    {
        comm->Start(Communicator::ALL_REDUCE, s);
    }
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    std::vector<double> t;
    for (const auto& r : comm->GetResults())
    {
        t.push_back((r.end - r.start).GetSeconds());
    }
    // the communicator made the algorithm from its TypeId: read the algorithm's own counters
    Ptr<OneShotAllReduce> oneShot = DynamicCast<OneShotAllReduce>(comm->GetSelectedAlgorithm());
    for (uint32_t r = 0; oneShot && r < ranks; ++r)
    {
        received->push_back(oneShot->GetReceived(r));
    }
    Simulator::Destroy();
    if (t.size() != sizes.size())
    {
        t.clear();
    }
    return t;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t ranks = 8;
    std::string sizeText = "4096,4194304";
    aitexample::ExampleCommandLine cmd(__FILE__, "one-shot-allreduce");
    cmd.AddValue("ranks", "ranks = hosts 0..ranks-1 of a k=4 fat-tree (2..16)", ranks, 2, 16);
    cmd.AddValue("sizes",
                 "all-reduce sizes in bytes, comma-separated, ascending (at least two)",
                 sizeText);
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    std::vector<uint64_t> sizes;
    std::stringstream ss(sizeText);
    bool valid = !sizeText.empty() && sizeText.back() != ',';
    for (std::string item; valid && std::getline(ss, item, ',');)
    {
        // at most 1 TiB (2^40, 13 digits), so that no text wraps around 64 bits
        const bool digits = !item.empty() && item.size() <= 13 &&
                            item.find_first_not_of("0123456789") == std::string::npos;
        const uint64_t v = digits ? std::strtoull(item.c_str(), nullptr, 10) : 0;
        valid = digits && v >= 1 && v <= (uint64_t(1) << 40) && (sizes.empty() || v > sizes.back());
        sizes.push_back(v);
    }
    cmd.Require("sizes",
                valid && sizes.size() >= 2,
                "at least two byte counts in 1 .. 1099511627776, ascending, e.g. 4096,4194304");
    cmd.Checked();
    double linkBps = 0;
    std::vector<uint64_t> unused;
    const std::vector<double> ring = Run("Ring", ranks, sizes, &unused, &linkBps);
    std::vector<uint64_t> received;
    const std::vector<double> shot = Run("OneShotAllReduce", ranks, sizes, &received, &linkBps);
    if (ring.empty() || shot.empty())
    {
        std::cout << "one-shot-allreduce: FAILED: not every all-reduce completed\n";
        return 1;
    }
    const double payloadBps = linkBps * 4096.0 / 4158.0; // RoCE MTU 4096: 62 B of headers
    bool ok = true;
    std::cout << "one-shot-allreduce: " << ranks << " ranks on a k=4 fat-tree\n"
              << "        bytes   ring (us)  one-shot (us)  bound (us)\n";
    for (size_t i = 0; i < sizes.size(); ++i)
    {
        const double bound = double(ranks - 1) * sizes[i] * 8 / payloadBps;
        ok = ok && shot[i] >= bound;
        std::cout << std::setw(13) << sizes[i] << std::fixed << std::setprecision(2)
                  << std::setw(12) << ring[i] * 1e6 << std::setw(15) << shot[i] * 1e6
                  << std::setw(12) << bound * 1e6 << "\n";
    }
    uint64_t total = 0;
    for (uint64_t s : sizes)
    {
        total += s;
    }
    bool conserved = received.size() == ranks;
    for (uint32_t r = 0; r < received.size(); ++r)
    {
        conserved = conserved && received[r] == (ranks - 1) * total;
    }
    std::cout << "one-shot-allreduce: every rank received " << (conserved ? "exactly" : "NOT")
              << " (n-1) x " << total << " B from the one-shot algorithm\n";
    ok = ok && conserved;
    const bool small = shot.front() < ring.front();
    const bool large = shot.back() > ring.back();
    std::cout << "one-shot-allreduce: " << (ok && small && large ? "OK" : "FAILED") << ": one-shot "
              << (small ? "faster" : "NOT faster") << " than ring at " << sizes.front() << " B, "
              << (large ? "slower" : "NOT slower") << " at " << sizes.back() << " B, "
              << (ok ? "no time below" : "a time BELOW") << " the bound (n-1) S / payload rate\n";
    return ok && small && large ? 0 : 1;
}
