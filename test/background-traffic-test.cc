/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlowSizeCdf and BackgroundTrafficHelper: the mean by integration against closed forms and
 * the published files, sampling against the CDF (Kolmogorov-Smirnov statistic), the offered
 * load of the generator against the target, bad CDF files (one test per error class), and the
 * generator on a real fabric.
 */
#include "ait-test-fixture.h"

#include "ns3/background-traffic-helper.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace ns3;
using namespace ns3::test;

namespace
{

FlowSizeCdf
Parse(const std::string& text)
{
    FlowSizeCdf cdf;
    std::istringstream in(text);
    std::string error;
    EXPECT_TRUE(FlowSizeCdf::TryParse(in, "t.txt", cdf, error)) << error;
    return cdf;
}

std::string
ParseError(const std::string& text)
{
    FlowSizeCdf cdf;
    std::istringstream in(text);
    std::string error;
    EXPECT_FALSE(FlowSizeCdf::TryParse(in, "bad.txt", cdf, error)) << text;
    EXPECT_FALSE(cdf.IsValid());
    return error;
}

/**
 * The Kolmogorov-Smirnov statistic of whole-byte samples against a CDF: the largest distance
 * between the empirical and the model CDF at whole sizes (both are step functions between
 * them; checked at each distinct sample x and just below it, at x - 1).
 */
double
KsStatistic(std::vector<double> x, const FlowSizeCdf& cdf)
{
    std::sort(x.begin(), x.end());
    const double n = x.size();
    double d = 0;
    size_t first = 0; // first index of the current value
    for (size_t i = 0; i < x.size(); ++i)
    {
        if (i > 0 && x[i] != x[i - 1])
        {
            first = i;
        }
        if (i + 1 < x.size() && x[i + 1] == x[i])
        {
            continue;
        }
        d = std::max({d,
                      std::abs((i + 1) / n - cdf.GetCdf(x[i])),
                      std::abs(first / n - cdf.GetCdf(x[i] - 1))});
    }
    return d;
}

const char* NAMES[] = {"websearch", "fb-hadoop", "ali-storage", "google-rpc"};
const char* FILES[] = {"websearch.txt",
                       "fb-hadoop.txt",
                       "ali-storage-2019.txt",
                       "google-rpc-2008.txt"};

} // namespace

TEST(FlowSizeCdf, MeanByIntegrationMatchesClosedForms)
{
    // uniform on [0, 1000]: 500
    EXPECT_DOUBLE_EQ(Parse("0 0\n1000 100\n").GetMean(), 500);
    // a mass of 1/2 on 100, then uniform on [100, 300]: 0.5 x 100 + 0.5 x 200 = 150
    EXPECT_DOUBLE_EQ(Parse("100 50\n300 100\n").GetMean(), 150);
    // a step (mass 0.4 at 1000 by a vertical segment), then uniform [1000, 2000] with 0.6:
    // 0.4 x 1000 + 0.6 x 1500 = 1300
    EXPECT_DOUBLE_EQ(Parse("# comment\n\n1000 0\n1000 40\n2000 100\n").GetMean(), 1300);
    // a single size
    EXPECT_DOUBLE_EQ(Parse("4096 100\n").GetMean(), 4096);
    // websearch by hand: sum of segment probability x midpoint
    const double ws = 0.15 * 5000 + 0.05 * 15000 + 0.10 * 25000 + 0.10 * 40000 + 0.13 * 65000 +
                      0.07 * 140000 + 0.10 * 600000 + 0.10 * 1500000 + 0.10 * 3500000 +
                      0.07 * 7500000 + 0.03 * 20000000;
    FlowSizeCdf web;
    ASSERT_TRUE(FlowSizeCdf::GetBuiltin("websearch", web));
    EXPECT_NEAR(web.GetMean(), ws, 1e-6 * ws);
    EXPECT_NEAR(web.GetMean(), 1711250, 1e-3); // = ws (the number in the docs)
    EXPECT_EQ(web.GetMaxSize(), 30000000);
}

TEST(FlowSizeCdf, BuiltinsEqualTheShippedFiles)
{
    for (int i = 0; i < 4; ++i)
    {
        FlowSizeCdf builtin;
        ASSERT_TRUE(FlowSizeCdf::GetBuiltin(NAMES[i], builtin)) << NAMES[i];
        const FlowSizeCdf file =
            FlowSizeCdf::Load(std::string(AIT_SOURCE_DIR "/traces/flow-size-cdfs/") + FILES[i]);
        ASSERT_EQ(builtin.GetPoints().size(), file.GetPoints().size()) << NAMES[i];
        for (size_t p = 0; p < file.GetPoints().size(); ++p)
        {
            EXPECT_EQ(builtin.GetPoints()[p].size, file.GetPoints()[p].size) << NAMES[i] << p;
            EXPECT_EQ(builtin.GetPoints()[p].percent, file.GetPoints()[p].percent) << NAMES[i] << p;
        }
        EXPECT_EQ(builtin.GetMean(), file.GetMean());
        std::cout << "  " << NAMES[i] << ": " << file.GetPoints().size() << " points, mean "
                  << file.GetMean() << " B, max " << file.GetMaxSize() << " B" << std::endl;
    }
    FlowSizeCdf none;
    EXPECT_FALSE(FlowSizeCdf::GetBuiltin("webserach", none));
    EXPECT_EQ(FlowSizeCdf::GetBuiltinNames(), "websearch|fb-hadoop|ali-storage|google-rpc");
}

TEST_F(Ns3Fixture, FlowSizeCdfSamplesFollowTheCdf)
{
    const int n = 100000;
    const double threshold = 1.63 / std::sqrt(double(n)); // the 1 % critical value
    for (const char* name : NAMES)
    {
        FlowSizeCdf cdf;
        ASSERT_TRUE(FlowSizeCdf::GetBuiltin(name, cdf));
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(77);
        std::vector<double> x(n);
        double sum = 0;
        for (int i = 0; i < n; ++i)
        {
            x[i] = cdf.Sample(u);
            sum += x[i];
            ASSERT_GE(x[i], 1);
            ASSERT_LE(x[i], cdf.GetMaxSize());
        }
        const double d = KsStatistic(x, cdf);
        std::cout << "  " << name << ": KS D = " << d << " (threshold " << threshold
                  << "), sample mean " << sum / n << " vs " << cdf.GetMean() << std::endl;
        EXPECT_LT(d, threshold) << name;
        if (std::string(name) == "websearch")
        {
            // the test can fail: the same samples against another distribution
            FlowSizeCdf other;
            FlowSizeCdf::GetBuiltin("fb-hadoop", other);
            EXPECT_GT(KsStatistic(x, other), 10 * threshold);
        }
    }
    // the inverse of the CDF
    const FlowSizeCdf c = Parse("100 50\n300 100\n");
    EXPECT_EQ(c.GetQuantile(0.25), 100);
    EXPECT_EQ(c.GetQuantile(0.75), 200);
    EXPECT_EQ(c.GetQuantile(1), 300);
    EXPECT_EQ(c.GetCdf(99), 0);
    EXPECT_EQ(c.GetCdf(100), 0.5);
    EXPECT_EQ(c.GetCdf(250), 0.875);
    EXPECT_EQ(c.GetCdf(1e9), 1);
}

TEST(FlowSizeCdf, BadFilesAreRejectedWithFileAndLine)
{
    // one case per error class
    EXPECT_EQ(ParseError("0 0\n10 50 7\n"),
              "bad.txt:2: expected two numbers \"size_bytes cumulative_percent\", got \"10 50 7\"");
    EXPECT_EQ(ParseError("0 0\nabc 50\n"),
              "bad.txt:2: size \"abc\" is not allowed (a number of bytes 0..1099511627776)");
    EXPECT_EQ(ParseError("-5 0\n10 100\n"),
              "bad.txt:1: size \"-5\" is not allowed (a number of bytes 0..1099511627776)");
    EXPECT_EQ(ParseError("0 0\n10 101\n"),
              "bad.txt:2: percentage \"101\" is not allowed (a number 0..100)");
    EXPECT_EQ(ParseError("0 0\n10 x%\n"),
              "bad.txt:2: percentage \"x%\" is not allowed (a number 0..100)");
    EXPECT_EQ(ParseError("0 0\n100 50\n\n50 100\n"),
              "bad.txt:4: size 50 is below the previous point's 100 (sizes must not decrease)");
    EXPECT_EQ(ParseError("0 0\n100 50\n200 40\n300 100\n"),
              "bad.txt:3: percentage 40 is below the previous point's 50 (percentages must not "
              "decrease)");
    EXPECT_EQ(ParseError("0 0\n100 100\n200 100\n"),
              "bad.txt:3: a point after the CDF reached 100 % (line 2): the CDF ends at its "
              "first 100");
    EXPECT_EQ(ParseError("0 0\n100 50\n200 99.5\n"),
              "bad.txt:3: the last point is at 99.5 %, not 100 (the CDF must end at 100)");
    EXPECT_EQ(ParseError("# nothing\n\n"),
              "bad.txt: the file has no points (expected lines \"size_bytes cumulative_percent\")");
    EXPECT_EQ(ParseError("0 0\n0 100\n"),
              "bad.txt: every flow has size 0 (the mean flow size must be above 0)");
    FlowSizeCdf cdf;
    std::string error;
    EXPECT_FALSE(FlowSizeCdf::TryLoad("/nonexistent/cdf.txt", cdf, error));
    EXPECT_EQ(error.rfind("/nonexistent/cdf.txt: cannot read the CDF file", 0), 0u) << error;
    EXPECT_FALSE(FlowSizeCdf::TryLoad("/tmp", cdf, error));
    EXPECT_EQ(error, "/tmp: is a directory, not a CDF file");
}

TEST_F(Ns3Fixture, BackgroundOfferedLoadIsWithinTwoPercentOfTheTarget)
{
    // generator level (no packets): 16 hosts at 100 Gb/s (one at 25 Gb/s), 30 % load, 20 s of
    // WebSearch arrivals (670,000 flows) and 5 s of Hadoop ones (2.4 million): the bytes
    // offered / duration against load x the sum of the link rates, overall and per source
    // host. Over 10 seeds (streams 100, 110, ...) the offered load of these runs has a mean of
    // 0.2995 / 0.2990 and a standard deviation of 0.27 % / 0.32 % of the target.
    for (const char* name : {"websearch", "fb-hadoop"})
    {
        FlowSizeCdf cdf;
        ASSERT_TRUE(FlowSizeCdf::GetBuiltin(name, cdf));
        std::vector<DataRate> rates(16, DataRate("100Gbps"));
        rates[5] = DataRate("25Gbps");
        BackgroundTrafficHelper bg;
        bg.SetCdf(cdf);
        bg.SetLoad(0.3);
        const Time duration = std::string(name) == "websearch" ? Seconds(20) : Seconds(5);
        bg.SetStopTime(duration);
        bg.AssignStreams(100);
        std::vector<double> perHost(16, 0);
        double bytes = 0;
        uint64_t flows = 0;
        Time last;
        bool ordered = true;
        bool distinct = true;
        bg.Generate(rates, [&](const FlowSpec& f) {
            distinct = distinct && f.src != f.dst && f.start < duration;
            ordered = ordered && f.start >= last;
            last = f.start;
            perHost[f.src] += f.bytes;
            bytes += f.bytes;
            ++flows;
        });
        EXPECT_TRUE(distinct);
        EXPECT_TRUE(ordered);
        const double capacity = (15 * 100e9 + 25e9) / 8; // bytes per second
        const double offered = bytes / duration.GetSeconds() / capacity;
        const double lambda = bg.GetArrivalRate(rates);
        std::cout << "  " << name << ": " << flows << " flows (expected "
                  << lambda * duration.GetSeconds() << "), offered load " << offered
                  << " of the target 0.3" << std::endl;
        EXPECT_NEAR(offered, 0.3, 0.02 * 0.3) << name;
        EXPECT_NEAR(flows, lambda * duration.GetSeconds(), 0.01 * lambda * duration.GetSeconds());
        EXPECT_EQ(bg.GetNStarted(), flows);
        EXPECT_EQ(bg.GetBytesStarted(), static_cast<uint64_t>(bytes));
        // the slow host offers a quarter of what the others do
        double fast = 0;
        for (uint32_t h = 0; h < 16; ++h)
        {
            fast += h == 5 ? 0 : perHost[h] / 15;
        }
        std::cout << "  host 5 (25 Gb/s) offers x" << perHost[5] / fast << " of the others"
                  << std::endl;
        EXPECT_NEAR(perHost[5] / fast, 0.25, 0.25 * 0.15) << name;
    }
}

TEST_F(Ns3Fixture, BackgroundHostSetAndSeeds)
{
    FlowSizeCdf cdf;
    ASSERT_TRUE(FlowSizeCdf::GetBuiltin("ali-storage", cdf));
    const std::vector<DataRate> rates(8, DataRate("100Gbps"));
    auto run = [&](int64_t stream, const std::vector<uint32_t>& hosts) {
        BackgroundTrafficHelper bg;
        bg.SetCdf(cdf);
        bg.SetLoad(0.5);
        bg.SetStartTime(MilliSeconds(1));
        bg.SetStopTime(MilliSeconds(2));
        if (!hosts.empty())
        {
            bg.SetHosts(hosts);
        }
        bg.AssignStreams(stream);
        return bg.Generate(rates);
    };
    const auto a = run(5, {});
    const auto b = run(5, {});
    const auto c = run(6, {});
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
    {
        EXPECT_EQ(a[i].start, b[i].start);
        EXPECT_EQ(a[i].bytes, b[i].bytes);
        EXPECT_EQ(a[i].src, b[i].src);
        EXPECT_EQ(a[i].dst, b[i].dst);
    }
    EXPECT_TRUE(a.size() != c.size() || a[0].bytes != c[0].bytes || a[0].start != c[0].start);
    ASSERT_FALSE(a.empty());
    EXPECT_GE(a.front().start, MilliSeconds(1));
    const auto set = run(5, {2, 4, 7});
    std::vector<int> seen(8, 0);
    for (const auto& f : set)
    {
        ++seen[f.src];
        ++seen[f.dst];
    }
    for (uint32_t h = 0; h < 8; ++h)
    {
        EXPECT_EQ(seen[h] > 0, h == 2 || h == 4 || h == 7) << h;
    }
}

TEST_F(Ns3Fixture, BackgroundRunsOnAFabricAndStops)
{
    // on a k=4 fat-tree: the flows Install() starts are the ones Generate() draws with the same
    // streams, every one completes, and Stop() ends the arrivals
    FlowSizeCdf cdf;
    ASSERT_TRUE(FlowSizeCdf::GetBuiltin("google-rpc", cdf));
    FatTreeHelper fabric(4);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    std::vector<DataRate> rates(fabric.GetNHosts(), DataRate("100Gbps"));
    BackgroundTrafficHelper ref;
    ref.SetCdf(cdf);
    ref.SetLoad(0.2);
    ref.SetStopTime(MicroSeconds(200));
    ref.AssignStreams(40);
    const std::vector<FlowSpec> expected = ref.Generate(rates);

    BackgroundTrafficHelper bg;
    bg.SetCdf(cdf);
    bg.SetLoad(0.2);
    bg.SetStopTime(MicroSeconds(400));
    bg.AssignStreams(40);
    bg.Install(fabric, nics);
    Simulator::Schedule(MicroSeconds(200), &BackgroundTrafficHelper::Stop, &bg);
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    const auto& got = bg.GetFlowHelper().GetResults();
    ASSERT_EQ(got.size(), expected.size());
    ASSERT_GT(got.size(), 20u);
    for (size_t i = 0; i < got.size(); ++i)
    {
        EXPECT_EQ(got[i].flow.start, expected[i].start) << i;
        EXPECT_EQ(got[i].flow.bytes, expected[i].bytes) << i;
        EXPECT_EQ(got[i].flow.src, expected[i].src) << i;
        EXPECT_TRUE(got[i].done) << i;
        EXPECT_EQ(got[i].qp->GetStats().bytesPosted, expected[i].bytes);
        EXPECT_EQ(got[i].qp->GetPriority(), 3);
    }
    EXPECT_EQ(bg.GetFlowHelper().GetNCompleted(), got.size());
}

TEST_F(Ns3Fixture, BackgroundQpPerPairBoundsTheQueuePairs)
{
    // the same arrivals with one QP per host pair: every flow completes with its bytes, the
    // NICs hold at most one QP per pair (own QPs: one per flow), and flows of a pair wait
    // behind each other (their FCT is never shorter than with their own QP, on average longer)
    FlowSizeCdf cdf;
    ASSERT_TRUE(FlowSizeCdf::GetBuiltin("ali-storage", cdf));
    auto run = [&cdf](bool perPair, uint64_t* qps, double* meanFct) {
        FatTreeHelper fabric(4);
        fabric.Install();
        auto nics = RdmaHelper().Install(fabric);
        BackgroundTrafficHelper bg;
        bg.SetCdf(cdf);
        bg.SetLoad(0.5);
        bg.SetHosts({0, 1, 4, 5});
        bg.SetStopTime(MicroSeconds(300));
        bg.SetQpPerPair(perPair);
        bg.AssignStreams(60);
        bg.Install(fabric, nics);
        Simulator::Run();
        *qps = 0;
        for (const auto& nic : nics)
        {
            *qps += nic->GetNQps();
        }
        double sum = 0;
        std::vector<uint64_t> bytes;
        for (const auto& r : bg.GetFlowHelper().GetResults())
        {
            EXPECT_TRUE(r.done);
            sum += r.GetFct().GetSeconds();
            bytes.push_back(r.flow.bytes);
        }
        *meanFct = sum / bytes.size();
        const uint64_t n = bytes.size();
        Simulator::Destroy();
        return n;
    };
    uint64_t ownQps;
    uint64_t pairQps;
    double ownFct;
    double pairFct;
    const uint64_t n = run(false, &ownQps, &ownFct);
    EXPECT_EQ(run(true, &pairQps, &pairFct), n);
    ASSERT_GT(n, 50u);
    EXPECT_EQ(ownQps, 2 * n);       // a QP at each end per flow
    EXPECT_LE(pairQps, 2u * 4 * 3); // at most 12 ordered pairs of 4 hosts
    EXPECT_GT(pairFct, ownFct);
    std::cout << "  " << n << " flows: " << ownQps << " QPs and mean FCT " << ownFct * 1e6
              << " us with a QP each, " << pairQps << " QPs and " << pairFct * 1e6
              << " us with one per pair" << std::endl;
}
