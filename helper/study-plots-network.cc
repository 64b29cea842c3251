/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * StudyPlots (study-plots.h): the figures of the fabric over time: queues, PFC pauses, link
 * utilisation per tier and the traced QPs' rate and window.
 */
#include "csv-row-reader.h"
#include "study-plots.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

namespace ns3
{

namespace
{

/// A switch queue (or ingress port and priority): switch, port, priority.
using QueueKey = std::tuple<uint64_t, uint64_t, uint64_t>;

/// The queue of the current row of a queues.csv or pfc.csv.
QueueKey
QueueOf(const CsvRowReader& c, int cSw, int cPort, int cPrio)
{
    return QueueKey{static_cast<uint64_t>(c.Num(cSw)),
                    static_cast<uint64_t>(c.Num(cPort)),
                    static_cast<uint64_t>(c.Num(cPrio))};
}

/// The time axis of a figure: us below 2 ms of span, else ms.
struct Axis
{
    double div;       //!< ns per unit
    std::string name; //!< us|ms
};

Axis
AxisFor(double spanNs)
{
    return spanNs < 2e6 ? Axis{1e3, "us"} : Axis{1e6, "ms"};
}

} // namespace

// ------------------------------------------------------------------ queues

bool
StudyPlots::PlotQueues(const std::string& dir) const
{
    // two passes over queues.csv (it can hold millions of samples): each queue's largest depth
    // first, then the samples of the deepest
    CsvRowReader c;
    if (!c.Open(dir + "/queues.csv"))
    {
        return false;
    }
    const int cT = c.Col("time_ns");
    const int cSw = c.Col("switch");
    const int cNode = c.Col("node");
    const int cPort = c.Col("port");
    const int cPrio = c.Col("priority");
    const int cBytes = c.Col("bytes");

    /// A queue of queues.csv: what the first pass keeps of it.
    struct Queue
    {
        double max = 0;   //!< largest sampled depth (bytes)
        std::string node; //!< node id (of its last sample)
    };

    std::map<QueueKey, Queue> queues;
    double tEnd = 0;
    while (c.Next())
    {
        Queue& q = queues[QueueOf(c, cSw, cPort, cPrio)];
        q.max = std::max(q.max, c.Num(cBytes));
        q.node.assign(c.Text(cNode));
        tEnd = std::max(tEnd, c.Num(cT));
    }
    std::vector<std::pair<double, QueueKey>> ranked;
    for (const auto& [k, q] : queues)
    {
        if (q.max > 0)
        {
            ranked.emplace_back(q.max, k);
        }
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        return x.first > y.first;
    });
    if (ranked.empty())
    {
        NoData(dir, "queues", "Queue depth of the busiest switch queues");
        return true;
    }
    if (ranked.size() > m_topQueues)
    {
        ranked.resize(m_topQueues);
    }
    const Axis t = AxisFor(tEnd);
    // the second pass: the samples of the queues drawn, one block each
    std::map<QueueKey, std::size_t> blockOf;
    for (std::size_t i = 0; i < ranked.size(); ++i)
    {
        blockOf[ranked[i].second] = i;
    }
    std::vector<std::string> blocks(ranked.size());
    c.Rewind();
    while (c.Next())
    {
        const auto it = blockOf.find(QueueOf(c, cSw, cPort, cPrio));
        if (it != blockOf.end())
        {
            blocks[it->second] +=
                Fmt("%.7g", c.Num(cT) / t.div) + ' ' + Fmt("%.3f", c.Num(cBytes) / 1e3) + '\n';
        }
    }
    std::ostringstream dat;
    dat << "# the " << ranked.size()
        << " queues with the largest sampled depth, one block each: time_" << t.name
        << " queue_KB (KB = "
           "1000 B)\n";
    std::vector<std::string> titles;
    for (std::size_t i = 0; i < ranked.size(); ++i)
    {
        const auto& [m, k] = ranked[i];
        titles.push_back("switch " + std::to_string(std::get<0>(k)) + " (node " + queues[k].node +
                         ") port " + std::to_string(std::get<1>(k)) + " priority " +
                         std::to_string(std::get<2>(k)) + ": max " + Fmt("%.1f", m / 1e3) + " KB");
        dat << "# " << titles.back() << "\n" << blocks[i] << "\n\n";
    }
    const std::size_t n = ranked.size();
    const uint32_t height = 140 + 200 * n;
    // panels of equal height: fixed margins (in pixels of the figure), the time axis below
    const double top = 1.0 - 60.0 / height;
    const double bottom = 70.0 / height;
    std::ostringstream gp;
    gp << Preamble("queues", 1000, height) << "unset key\n"
       << "set xrange [0:" << Fmt("%.7g", tEnd / t.div) << "]\nset yrange [0:*]\n"
       << "set ylabel \"queue (KB)\"\nset format x \"\"\n"
       << "set multiplot layout " << n << ",1 margins 0.1,0.96," << Fmt("%.4f", bottom) << ","
       << Fmt("%.4f", top) << " spacing 0," << Fmt("%.4f", 40.0 / height) << " title "
       << Quote("Queue depth of the " + std::to_string(n) + " busiest switch queues") << "\n";
    for (std::size_t i = 0; i < n; ++i)
    {
        // at most 4 intervals on the y axis: a step of 1, 2 or 5 x 10^k KB
        const double max = ranked[i].first / 1e3;
        double step = 1e-3;
        while (max / step > 4)
        {
            const double m = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
            step *= m < 1.5 ? 2 : (m < 3 ? 2.5 : 2);
        }
        if (i + 1 == n)
        {
            gp << "set format x \"%g\"\nset xlabel \"time (" << t.name << ")\"\n";
        }
        gp << "set ytics " << Fmt("%g", step) << "\nset title " << Quote(titles[i])
           << " font \",12\" offset 0,-0.6\n"
           << "plot \"queues.dat\" index " << i << " using 1:2 with steps lt " << i + 1
           << " notitle\n";
    }
    gp << "unset multiplot\n";
    Draw(dir, "queues", dat.str(), gp.str());
    return true;
}

// ------------------------------------------------------------------ PFC

bool
StudyPlots::PlotPfc(const std::string& dir) const
{
    CsvRowReader c;
    if (!c.Open(dir + "/pfc.csv"))
    {
        return false;
    }
    const int cT = c.Col("time_ns");
    const int cSw = c.Col("switch");
    const int cPort = c.Col("port");
    const int cPrio = c.Col("priority");
    const int cType = c.Col("type");
    double tEnd = 0;
    {
        // the time axis ends at the last queue sample (or PFC frame); nothing else of it needed
        CsvRowReader q;
        if (q.Open(dir + "/queues.csv"))
        {
            const int qT = q.Col("time_ns");
            while (q.Next())
            {
                tEnd = std::max(tEnd, q.Num(qT));
            }
        }
    }

    // A paused port and priority: an interval runs from a pause frame to the next resume (a
    // refresh of an open pause keeps its start), or to tEnd if none came.
    struct Paused
    {
        double total = 0;  //!< time paused, the intervals summed in order
        double openAt = 0; //!< start of the open interval
        bool open = false; //!< paused now
    };

    // the first pass: every paused port's time paused, to choose the lanes
    std::map<QueueKey, Paused> paused;
    uint64_t pauses = 0;
    while (c.Next())
    {
        const double t = c.Num(cT);
        tEnd = std::max(tEnd, t);
        if (c.Text(cType) == "pause")
        {
            ++pauses;
            Paused& p = paused[QueueOf(c, cSw, cPort, cPrio)];
            if (!p.open)
            {
                p.open = true;
                p.openAt = t;
            }
        }
        else if (const auto it = paused.find(QueueOf(c, cSw, cPort, cPrio));
                 it != paused.end() && it->second.open)
        {
            it->second.total += t - it->second.openAt;
            it->second.open = false;
        }
    }
    if (paused.empty())
    {
        NoData(dir, "pfc", "PFC pause intervals (no pause frame was sent)");
        return true;
    }
    // lanes: the ports paused longest first
    std::vector<std::pair<double, QueueKey>> ranked;
    for (auto& [k, p] : paused)
    {
        if (p.open)
        {
            p.total += tEnd - p.openAt; // still paused at the last sample
        }
        ranked.emplace_back(p.total, k);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        return x.first > y.first;
    });
    const std::size_t shown = std::min<std::size_t>(ranked.size(), 24);
    const Axis t = AxisFor(tEnd);
    // the second pass: the intervals of the lanes drawn
    std::map<QueueKey, std::size_t> laneOf;
    for (std::size_t lane = 0; lane < shown; ++lane)
    {
        laneOf[ranked[lane].second] = lane;
    }
    std::vector<std::vector<std::pair<double, double>>> intervals(shown);
    std::vector<Paused> state(shown);
    c.Rewind();
    while (c.Next())
    {
        const auto it = laneOf.find(QueueOf(c, cSw, cPort, cPrio));
        if (it == laneOf.end())
        {
            continue;
        }
        Paused& p = state[it->second];
        const double t = c.Num(cT);
        if (c.Text(cType) == "pause")
        {
            if (!p.open)
            {
                p.open = true;
                p.openAt = t;
            }
        }
        else if (p.open)
        {
            intervals[it->second].emplace_back(p.openAt, t);
            p.open = false;
        }
    }
    for (std::size_t lane = 0; lane < shown; ++lane)
    {
        if (state[lane].open)
        {
            intervals[lane].emplace_back(state[lane].openAt, tEnd);
        }
    }
    std::ostringstream dat;
    std::ostringstream ytics;
    dat << "# start_" << t.name << " lane end_" << t.name
        << ": a switch ingress queue from a pause frame it sent to its "
           "resume (the "
        << shown << " longest-paused of " << ranked.size() << ")\n";
    for (std::size_t lane = 0; lane < shown; ++lane)
    {
        const QueueKey& k = ranked[lane].second;
        const std::string label = "switch " + std::to_string(std::get<0>(k)) + " port " +
                                  std::to_string(std::get<1>(k)) + " prio " +
                                  std::to_string(std::get<2>(k));
        ytics << (lane ? ", " : "") << Quote(label) << " " << lane;
        dat << "# " << label << ": " << Fmt("%.3f", ranked[lane].first / 1e3) << " us paused\n";
        for (const auto& [a, b] : intervals[lane])
        {
            dat << Fmt("%.7g", a / t.div) << ' ' << lane << ' ' << Fmt("%.7g", b / t.div) << '\n';
        }
    }
    std::ostringstream gp;
    gp << Preamble("pfc", 1100, std::max<uint32_t>(420, 160 + 26 * shown)) << "set title "
       << Quote("PFC pause intervals (" + std::to_string(pauses) +
                (pauses == 1 ? " pause frame from " : " pause frames from ") +
                std::to_string(ranked.size()) +
                (ranked.size() == 1 ? " switch port" : " switch ports") +
                (shown < ranked.size() ? "; the " + std::to_string(shown) + " paused longest"
                                       : std::string()) +
                ")")
       << "\nset xlabel \"time (" << t.name
       << ")\"\nset xrange [0:" << Fmt("%.6g", tEnd / t.div * 1.01) << "]\n"
       << "set ytics (" << ytics.str() << ")\nset yrange [" << shown - 0.5 << ":-0.5]\n"
       << "set grid xtics noytics\nset style fill solid 1.0 noborder\nunset key\n"
       << "plot \"pfc.dat\" using (($1+$3)/2):2:1:3:($2-0.35):($2+0.35) with boxxyerror lt 4 "
          "notitle\n";
    Draw(dir, "pfc", dat.str(), gp.str());
    return true;
}

// ------------------------------------------------------------------ utilisation

bool
StudyPlots::PlotUtilization(const std::string& dir) const
{
    CsvRowReader c;
    if (!c.Open(dir + "/link-tiers.csv"))
    {
        return false;
    }
    const int cStart = c.Col("start_ns");
    const int cEnd = c.Col("end_ns");
    const int cTier = c.Col("tier");
    const int cDir = c.Col("direction");
    const int cUtil = c.Col("utilization");

    /// A tier and direction: its lines of the figure.
    struct Series
    {
        std::ostringstream dat; //!< its block
        double last = -1;       //!< end of its last interval (-1: none yet)
    };

    using SeriesKey = std::pair<uint64_t, std::string>; // tier, direction
    auto seriesOf = [&c, cTier, cDir]() {
        return SeriesKey{static_cast<uint64_t>(c.Num(cTier)), std::string(c.Text(cDir))};
    };
    // the first pass: the series and the time axis; the second: their intervals
    std::map<SeriesKey, Series> series;
    double tEnd = 0;
    while (c.Next())
    {
        series[seriesOf()];
        tEnd = std::max(tEnd, c.Num(cEnd));
    }
    if (series.empty())
    {
        NoData(dir, "utilization", "Link utilization per tier");
        return true;
    }
    const Axis t = AxisFor(tEnd);
    c.Rewind();
    while (c.Next())
    {
        Series& s = series[seriesOf()];
        const double a = c.Num(cStart) / t.div;
        const double b = c.Num(cEnd) / t.div;
        const double u = 100 * c.Num(cUtil);
        if (s.last >= 0 && a > s.last)
        {
            s.dat << Fmt("%.7g", s.last) << " 0\n" << Fmt("%.7g", a) << " 0\n";
        }
        s.dat << Fmt("%.7g", a) << ' ' << Fmt("%.4f", u) << '\n'
              << Fmt("%.7g", b) << ' ' << Fmt("%.4f", u) << '\n';
        s.last = b;
    }
    std::ostringstream dat;
    dat << "# one block per tier and direction: time_" << t.name
        << " utilization_percent (each interval's "
           "start and end; 0 between sampled intervals: no frame sent)\n";
    std::vector<std::string> titles;
    for (const auto& [key, s] : series)
    {
        titles.push_back(TierName(key.first) + " " + key.second);
        dat << "# " << titles.back() << "\n" << s.dat.str() << "\n\n";
    }
    std::ostringstream gp;
    gp << Preamble("utilization", 1100, 560)
       << "set title \"Link utilization per tier (bytes sent / capacity of every link of the "
          "tier)\"\n"
       << "set xlabel \"time (" << t.name
       << ")\"\nset ylabel \"utilization (%)\"\nset yrange [0:105]\n"
       << "set xrange [0:" << Fmt("%.7g", tEnd / t.div) << "]\nplot ";
    for (std::size_t i = 0; i < titles.size(); ++i)
    {
        gp << (i ? ", " : "") << "\"utilization.dat\" index " << i << " using 1:2 with lines lt "
           << i + 1 << (i % 2 ? " dt 2" : "") << " title " << Quote(titles[i]);
    }
    gp << "\n";
    Draw(dir, "utilization", dat.str(), gp.str());
    return true;
}

// ------------------------------------------------------------------ traced QPs

bool
StudyPlots::PlotQpRate(const std::string& dir) const
{
    CsvRowReader c;
    if (!c.Open(dir + "/qp-trace.csv"))
    {
        return false;
    }
    const int cT = c.Col("time_ns");
    const int cRate = c.Col("rate_bps");
    const int cWin = c.Col("window_bytes");
    const int cCnp = c.Col("cnps");
    const int cSrc = c.Col("src");
    const int cDst = c.Col("dst");
    const int cQpn = c.Col("qpn");
    // the first pass: rows at all, and windows in any (then every series has that column)
    bool rows = false;
    bool windows = false;
    while (c.Next())
    {
        rows = true;
        windows = windows || !c.Text(cWin).empty();
    }
    if (!rows)
    {
        return false;
    }
    std::vector<std::string> order;
    std::map<std::string, std::ostringstream> series;
    std::map<std::string, std::string> cnpsSoFar;
    std::ostringstream cnpPoints; // the rate right after each CNP
    double top = 0;
    c.Rewind();
    while (c.Next())
    {
        const std::string key = std::string(c.Text(cSrc)) + "->" + std::string(c.Text(cDst)) +
                                " QP " + std::string(c.Text(cQpn));
        if (!series.count(key))
        {
            order.push_back(key);
        }
        const std::string point =
            Fmt("%.3f", c.Num(cT) / 1e3) + ' ' + Fmt("%.3f", c.Num(cRate) / 1e9);
        series[key] << point;
        if (windows)
        {
            series[key] << ' ' << (c.Text(cWin).empty() ? "NaN" : Fmt("%.3f", c.Num(cWin) / 1e3));
        }
        series[key] << '\n';
        if (cnpsSoFar.count(key) && cnpsSoFar[key] != c.Text(cCnp))
        {
            cnpPoints << point << '\n';
        }
        cnpsSoFar[key] = c.Text(cCnp);
        top = std::max(top, c.Num(cRate) / 1e9);
    }
    std::ostringstream dat;
    std::ostringstream rate;
    std::ostringstream win;
    for (std::size_t k = 0; k < order.size(); ++k)
    {
        dat << "# host " << order[k] << ": time_us rate_gbps" << (windows ? " window_KB" : "")
            << "\n"
            << series[order[k]].str() << "\n\n";
        rate << (k ? ", " : "") << "\"qp-rate.dat\" index " << k << " using 1:2 with steps lt "
             << k + 1 << " title " << Quote("host " + order[k]);
        win << (k ? ", " : "") << "\"qp-rate.dat\" index " << k << " using 1:3 with steps lt "
            << k + 1 << " title " << Quote("host " + order[k]);
    }
    if (!cnpPoints.str().empty())
    {
        dat << "# CNPs: time_us rate_gbps right after each CNP arrived\n"
            << cnpPoints.str() << "\n\n";
        rate << ", \"qp-rate.dat\" index " << order.size()
             << " using 1:2 with points pt 7 ps 0.9 lc rgb 'black' title \"a CNP arrived\"";
    }
    const std::string title =
        "Traced queue pairs" + (m_runLabel.empty() ? std::string() : " (" + m_runLabel + ")");
    std::ostringstream gp;
    gp << Preamble("qp-rate", 1100, windows ? 820 : 560) << "set xlabel \"time (us)\"\n"
       << "set yrange [0:" << Fmt("%.1f", top * 1.08 + 1e-9) << "]\nset lmargin 12\n";
    if (windows)
    {
        gp << "set multiplot layout 2,1 title " << Quote(title) << "\n"
           << "set title \"sending rate\"\nset ylabel \"rate (Gb/s)\"\nplot " << rate.str()
           << "\nset title \"window\"\nset ylabel \"window (KB)\"\nset yrange [0:*]\nplot "
           << win.str() << "\nunset multiplot\n";
    }
    else
    {
        gp << "set title " << Quote(title + ": sending rate") << "\n"
           << "set ylabel \"rate (Gb/s)\"\nplot " << rate.str() << "\n";
    }
    Draw(dir, "qp-rate", dat.str(), gp.str());
    return true;
}

} // namespace ns3
