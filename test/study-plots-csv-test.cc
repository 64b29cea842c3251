/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * CsvRowReader (a CSV file a row at a time) and the figures StudyPlots draws from hand-written
 * CSVs with it: the exact .dat of queues, pfc, utilization and qp-rate, malformed rows (fewer
 * and extra fields, blank lines, no newline at the end, CRLF), empty and header-only files and
 * missing columns. The rules are those of the reader before the figures streamed their files
 * (StudyPlots::ReadCsv, whole files as strings): the figures are byte for byte the same.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/csv-row-reader.h"
#include "ns3/study-plots.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// A fresh directory (made, empty).
std::string
Dir(const std::string& name)
{
    const std::string d =
        ns3::test::ScratchDir() + "ait-csv-" + std::to_string(getpid()) + "-" + name;
    Shell("rm -rf " + d + " && mkdir -p " + d);
    return d;
}

/// Write a file, byte for byte.
void
Write(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

bool
Exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

/// Every row of a file as CsvRowReader reads it (fields as strings); false if Open fails.
bool
Rows(const std::string& path, std::vector<std::vector<std::string>>& rows)
{
    rows.clear();
    CsvRowReader c;
    if (!c.Open(path))
    {
        return false;
    }
    while (c.Next())
    {
        std::vector<std::string> row;
        for (std::size_t i = 0; i < c.GetFieldCount(); ++i)
        {
            row.emplace_back(c.Text(static_cast<int>(i)));
        }
        rows.push_back(row);
    }
    return true;
}

using Table = std::vector<std::vector<std::string>>;

} // namespace

TEST(CsvRowReader, RowsOfAnyLengthBlankLinesSkippedLastLineWithoutNewline)
{
    const std::string d = Dir("rows");
    Write(d + "/a.csv", "t,sw,bytes\n1,2,3\n\n4,5\n6,7,8,9\n\n\n,,\n10,11,12");
    CsvRowReader c;
    ASSERT_TRUE(c.Open(d + "/a.csv"));
    EXPECT_EQ(c.GetHeader(), (std::vector<std::string>{"t", "sw", "bytes"}));
    EXPECT_EQ(c.Col("sw"), 1);
    EXPECT_EQ(c.Col("bytes"), 2);
    EXPECT_EQ(c.Col("nope"), -1);
    const int b = c.Col("bytes");
    for (int pass = 0; pass < 2; ++pass) // Rewind: the same rows again
    {
        ASSERT_TRUE(c.Next());
        EXPECT_EQ(c.GetFieldCount(), 3u);
        EXPECT_EQ(c.Num(b), 3.0);
        EXPECT_EQ(c.Text(0), "1");
        ASSERT_TRUE(c.Next()) << "the blank line is skipped";
        EXPECT_EQ(c.GetFieldCount(), 2u) << "a row with fewer fields";
        EXPECT_EQ(c.Text(b), "");
        EXPECT_EQ(c.Num(b), 0.0);
        EXPECT_EQ(c.Text(-1), "");
        EXPECT_EQ(c.Num(-1), 0.0);
        ASSERT_TRUE(c.Next());
        EXPECT_EQ(c.GetFieldCount(), 4u) << "a row with an extra field";
        EXPECT_EQ(c.Text(3), "9");
        EXPECT_EQ(c.Num(b), 8.0) << "the comma after the field is no part of it";
        ASSERT_TRUE(c.Next());
        EXPECT_EQ(c.GetFieldCount(), 3u) << "three empty fields";
        EXPECT_EQ(c.Text(1), "");
        ASSERT_TRUE(c.Next()) << "the last line has no newline";
        EXPECT_EQ(c.Text(2), "12");
        EXPECT_FALSE(c.Next());
        EXPECT_FALSE(c.Next());
        ASSERT_TRUE(c.Rewind());
    }
    // ReadCsv holds the same rows
    StudyPlots::Csv csv;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/a.csv", csv));
    Table rows;
    ASSERT_TRUE(Rows(d + "/a.csv", rows));
    EXPECT_EQ(csv.rows, rows);
    EXPECT_EQ(csv.rows.size(), 5u);
    EXPECT_EQ(csv.header, c.GetHeader());
    Shell("rm -rf " + d);
}

TEST(CsvRowReader, EmptyHeaderOnlyMissingAndReopened)
{
    const std::string d = Dir("empty");
    CsvRowReader c;
    EXPECT_FALSE(c.Open(d + "/missing.csv"));
    EXPECT_FALSE(c.Next());
    EXPECT_FALSE(c.Rewind());
    EXPECT_FALSE(c.Open(d)) << "a directory";
    Write(d + "/empty.csv", "");
    EXPECT_FALSE(c.Open(d + "/empty.csv")) << "no line at all";
    StudyPlots::Csv csv;
    EXPECT_FALSE(StudyPlots::ReadCsv(d + "/empty.csv", csv));
    for (const std::string header : {"a,b\n", "a,b"})
    {
        Write(d + "/h.csv", header);
        ASSERT_TRUE(c.Open(d + "/h.csv")) << header;
        EXPECT_EQ(c.GetHeader(), (std::vector<std::string>{"a", "b"}));
        EXPECT_FALSE(c.Next());
        EXPECT_TRUE(c.Rewind());
        EXPECT_FALSE(c.Next());
        ASSERT_TRUE(StudyPlots::ReadCsv(d + "/h.csv", csv));
        EXPECT_TRUE(csv.rows.empty());
    }
    // an empty first line is the header: one column named ""
    Write(d + "/blank.csv", "\n1,2\n");
    ASSERT_TRUE(c.Open(d + "/blank.csv"));
    EXPECT_EQ(c.GetHeader(), std::vector<std::string>{""});
    EXPECT_EQ(c.Col(""), 0);
    ASSERT_TRUE(c.Next());
    EXPECT_EQ(c.Text(1), "2");
    // opening another file starts over
    Write(d + "/b.csv", "x\n7\n");
    ASSERT_TRUE(c.Open(d + "/b.csv"));
    EXPECT_EQ(c.GetHeader(), std::vector<std::string>{"x"});
    ASSERT_TRUE(c.Next());
    EXPECT_EQ(c.Num(0), 7.0);
    EXPECT_FALSE(c.Next());
    Shell("rm -rf " + d);
}

TEST(CsvRowReader, NumbersAsStrtodReadsThemAndCrlfKept)
{
    const std::string d = Dir("num");
    Write(d + "/n.csv", "v\n1e3\n 7\n12abc\nabc\n-5\n0x10\n2.5\n");
    CsvRowReader c;
    ASSERT_TRUE(c.Open(d + "/n.csv"));
    std::vector<double> v;
    while (c.Next())
    {
        v.push_back(c.Num(0));
    }
    EXPECT_EQ(v, (std::vector<double>{1000, 7, 12, 0, -5, 16, 2.5}));
    // CRLF: the carriage return stays in the last field (and the last column name)
    Write(d + "/crlf.csv", "a,bytes\r\n1,3000\r\n");
    ASSERT_TRUE(c.Open(d + "/crlf.csv"));
    EXPECT_EQ(c.Col("bytes"), -1);
    EXPECT_EQ(c.Col("bytes\r"), 1);
    ASSERT_TRUE(c.Next());
    EXPECT_EQ(c.Text(1), "3000\r");
    EXPECT_EQ(c.Num(1), 3000.0);
    EXPECT_EQ(c.Text(0), "1");
    // a long line, many rows
    std::string big = "a,b\n" + std::string(100000, 'x') + ",1\n";
    for (int i = 0; i < 20000; ++i)
    {
        big += std::to_string(i) + "," + std::to_string(2 * i) + "\n";
    }
    Write(d + "/big.csv", big);
    ASSERT_TRUE(c.Open(d + "/big.csv"));
    ASSERT_TRUE(c.Next());
    EXPECT_EQ(c.Text(0).size(), 100000u);
    double sum = 0;
    std::size_t n = 0;
    while (c.Next())
    {
        sum += c.Num(1);
        ++n;
    }
    EXPECT_EQ(n, 20000u);
    EXPECT_EQ(sum, 19999.0 * 20000.0);
    Shell("rm -rf " + d);
}

#define REQUIRE_GNUPLOT()                                                                          \
    if (!StudyPlots::HaveGnuplot())                                                                \
    {                                                                                              \
        GTEST_SKIP() << "gnuplot is not installed";                                                \
    }

TEST(StudyPlotsCsv, QueuesFromRaggedRowsTwoPasses)
{
    REQUIRE_GNUPLOT();
    const std::string d = Dir("queues");
    // a blank line, an extra field, a row without bytes (0), a node renamed (the title has the
    // last), a queue that never filled (not drawn, but its time ends the axis), no last newline
    Write(d + "/queues.csv",
          "time_ns,switch,node,port,priority,bytes\n"
          "10000,0,16,1,3,3000\n"
          "10000,0,16,2,3,1000\n"
          "\n"
          "10000,1,17,0,3,2000,extra\n"
          "20000,0,16,1,3\n"
          "20000,1,99,0,3,500\n"
          "25000,0,16,1,3,1500\n"
          "40000,1,17,0,3,2500\n"
          "50000,2,18,1,3,0");
    StudyPlots plots;
    plots.SetTopQueues(2);
    ASSERT_TRUE(plots.Plot(d, "queues"));
    EXPECT_EQ(Slurp(d + "/queues.dat"),
              "# the 2 queues with the largest sampled depth, one block each: time_us queue_KB "
              "(KB = 1000 B)\n"
              "# switch 0 (node 16) port 1 priority 3: max 3.0 KB\n"
              "10 3.000\n20 0.000\n25 1.500\n\n\n"
              "# switch 1 (node 17) port 0 priority 3: max 2.5 KB\n"
              "10 2.000\n20 0.500\n40 2.500\n\n\n");
    EXPECT_NE(Slurp(d + "/queues.gp").find("set xrange [0:50]"), std::string::npos);
    EXPECT_TRUE(Exists(d + "/queues.png"));
    Shell("rm -rf " + d);
}

TEST(StudyPlotsCsv, PfcRefreshesResumesWithoutPauseAndOpenToTheEnd)
{
    REQUIRE_GNUPLOT();
    const std::string d = Dir("pfc");
    // (0,1,3): 1000 refreshed at 1500, resumed at 4000; again 9000-9500. (1,0,3): a resume with
    // no pause (ignored), then paused to the end: queues.csv's last sample, 20 us. (2,2,3): 1 us
    Write(d + "/pfc.csv",
          "time_ns,switch,node,port,priority,type\n"
          "1000,0,16,1,3,pause\n1500,0,16,1,3,pause\n4000,0,16,1,3,resume\n"
          "5000,1,17,0,3,resume\n6000,1,17,0,3,pause\n7000,2,18,2,3,pause\n"
          "8000,2,18,2,3,resume\n9000,0,16,1,3,pause\n9500,0,16,1,3,resume\n");
    Write(d + "/queues.csv", "time_ns,switch,node,port,priority,bytes\n20000,0,16,1,3,0\n");
    StudyPlots plots;
    ASSERT_TRUE(plots.Plot(d, "pfc"));
    EXPECT_EQ(Slurp(d + "/pfc.dat"),
              "# start_us lane end_us: a switch ingress queue from a pause frame it sent to its "
              "resume (the 3 longest-paused of 3)\n"
              "# switch 1 port 0 prio 3: 14.000 us paused\n6 0 20\n"
              "# switch 0 port 1 prio 3: 3.500 us paused\n1 1 4\n9 1 9.5\n"
              "# switch 2 port 2 prio 3: 1.000 us paused\n7 2 8\n");
    const std::string gp = Slurp(d + "/pfc.gp");
    EXPECT_NE(gp.find("(5 pause frames from 3 switch ports)"), std::string::npos) << gp;
    EXPECT_NE(gp.find("set xrange [0:20.2]"), std::string::npos) << gp;

    // 26 ports, one interval each, in pairs of equal length: the 24 longest drawn, equal ones in
    // the order of (switch, port, priority); the pauses all first, then the resumes
    std::string csv = "time_ns,switch,node,port,priority,type\n";
    for (int i = 0; i < 26; ++i)
    {
        csv += "1000," + std::to_string(i) + ",0,0,3,pause\n";
    }
    for (int k = 1; k <= 13; ++k)
    {
        for (int i : {k - 1, k + 12})
        {
            csv += std::to_string(1000 + 100 * k) + "," + std::to_string(i) + ",0,0,3,resume\n";
        }
    }
    Write(d + "/pfc.csv", csv);
    std::remove((d + "/queues.csv").c_str());
    ASSERT_TRUE(plots.Plot(d, "pfc"));
    const std::string dat = Slurp(d + "/pfc.dat");
    EXPECT_NE(
        Slurp(d + "/pfc.gp").find("(26 pause frames from 26 switch ports; the 24 paused longest)"),
        std::string::npos);
    EXPECT_NE(dat.find("(the 24 longest-paused of 26)\n"
                       "# switch 12 port 0 prio 3: 1.300 us paused\n1 0 2.3\n"
                       "# switch 25 port 0 prio 3: 1.300 us paused\n1 1 2.3\n"
                       "# switch 11 port 0 prio 3: 1.200 us paused\n1 2 2.2\n"),
              std::string::npos)
        << dat;
    EXPECT_NE(dat.find("# switch 1 port 0 prio 3: 0.200 us paused\n1 22 1.2\n"
                       "# switch 14 port 0 prio 3: 0.200 us paused\n1 23 1.2\n"),
              std::string::npos)
        << dat;
    EXPECT_EQ(dat.find("# switch 0 "), std::string::npos) << "the shortest two are not drawn";
    EXPECT_EQ(dat.find("# switch 13 "), std::string::npos);
    Shell("rm -rf " + d);
}

TEST(StudyPlotsCsv, UtilizationGapsAndQpRateWindowsAndCnps)
{
    REQUIRE_GNUPLOT();
    const std::string d = Dir("util");
    Write(d + "/link-tiers.csv",
          "start_ns,end_ns,tier,direction,links,bytes,utilization\n"
          "0,100000,0,up,16,125000,0.1\n0,100000,1,down,16,1250000,1\n"
          "100000,200000,0,up,16,250000,0.2\n300000,400000,0,up,16,125000,0.1\n");
    Write(d + "/qp-trace.csv",
          "time_ns,src,dst,qpn,rate_bps,window_bytes,cnps,bytes_acked\n"
          "0,0,1,256,100000000000,,0,0\n5000,0,1,256,50000000000,150000,1,1000\n"
          "6000,1,2,257,25000000000,,0,0\n9000,0,1,256,75000000000,140000,1,3000\n"
          "9500,1,2,257,12500000000,,2,100\n");
    StudyPlots plots;
    plots.SetTierNames({"host-edge", "edge-agg"});
    ASSERT_TRUE(plots.Plot(d, "utilization"));
    EXPECT_EQ(Slurp(d + "/utilization.dat"),
              "# one block per tier and direction: time_us utilization_percent (each interval's "
              "start and end; 0 between sampled intervals: no frame sent)\n"
              "# host-edge up\n0 10.0000\n100 10.0000\n100 20.0000\n200 20.0000\n200 0\n300 0\n"
              "300 10.0000\n400 10.0000\n\n\n"
              "# edge-agg down\n0 100.0000\n100 100.0000\n\n\n");
    ASSERT_TRUE(plots.Plot(d, "qp-rate"));
    EXPECT_EQ(Slurp(d + "/qp-rate.dat"),
              "# host 0->1 QP 256: time_us rate_gbps window_KB\n"
              "0.000 100.000 NaN\n5.000 50.000 150.000\n9.000 75.000 140.000\n\n\n"
              "# host 1->2 QP 257: time_us rate_gbps window_KB\n"
              "6.000 25.000 NaN\n9.500 12.500 NaN\n\n\n"
              "# CNPs: time_us rate_gbps right after each CNP arrived\n"
              "5.000 50.000\n9.500 12.500\n\n\n");
    EXPECT_NE(Slurp(d + "/qp-rate.gp").find("set yrange [0:108.0]"), std::string::npos);
    Shell("rm -rf " + d);
}

TEST(StudyPlotsCsv, EmptyHeaderOnlyMissingColumnAndCrlf)
{
    REQUIRE_GNUPLOT();
    const std::string d = Dir("edge");
    StudyPlots plots;
    const std::string q = d + "/queues.csv";
    // an empty file is no CSV: the figure is not drawn, as for a missing one
    Write(q, "");
    EXPECT_FALSE(plots.Plot(d, "queues"));
    EXPECT_FALSE(Exists(d + "/queues.dat"));
    Write(d + "/flows.csv", "");
    EXPECT_FALSE(plots.Plot(d, "fct-cdf"));
    // a header and no rows: "no data"
    Write(q, "time_ns,switch,node,port,priority,bytes\n");
    ASSERT_TRUE(plots.Plot(d, "queues"));
    EXPECT_EQ(Slurp(d + "/queues.dat"), "# no data\n");
    // without the bytes column every depth reads 0: "no data"
    std::remove((d + "/queues.dat").c_str());
    Write(q, "time_ns,switch,node,port,priority\n10000,0,16,1,3\n");
    ASSERT_TRUE(plots.Plot(d, "queues"));
    EXPECT_EQ(Slurp(d + "/queues.dat"), "# no data\n");
    // CRLF (as the reader always did): the last column is named "bytes\r", so bytes is
    // missing and the figure says "no data"; the fields before the last read as numbers
    std::remove((d + "/queues.dat").c_str());
    Write(q, "time_ns,switch,node,port,priority,bytes\r\n10000,0,16,1,3,3000\r\n");
    ASSERT_TRUE(plots.Plot(d, "queues"));
    EXPECT_EQ(Slurp(d + "/queues.dat"), "# no data\n");
    // the same with a bytes column before the end: drawn, the time axis from time_ns
    Write(q, "bytes,time_ns,switch,node,port,priority\r\n3000,10000,0,16,1,3\r\n");
    ASSERT_TRUE(plots.Plot(d, "queues"));
    EXPECT_EQ(Slurp(d + "/queues.dat"),
              "# the 1 queues with the largest sampled depth, one block each: time_us queue_KB "
              "(KB = 1000 B)\n"
              "# switch 0 (node 16) port 1 priority 0: max 3.0 KB\n10 3.000\n\n\n")
        << "priority\\r is no column name either: priority 0";
    // pfc.csv with a header only, or without its type column (no row is a pause): "no data"
    for (const std::string pfc :
         {"time_ns,switch,node,port,priority,type\n",
          "time_ns,switch,node,port,priority\n1000,0,16,1,3\n2000,0,16,1,3\n"})
    {
        Write(d + "/pfc.csv", pfc);
        std::remove((d + "/pfc.dat").c_str());
        ASSERT_TRUE(plots.Plot(d, "pfc"));
        EXPECT_EQ(Slurp(d + "/pfc.dat"), "# no data\n") << pfc;
    }
    Shell("rm -rf " + d);
}
