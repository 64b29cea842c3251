/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * StudyPlots (study-plots.h): the figures of the fabric over time: queues, PFC pauses, link
 * utilisation per tier and the traced QPs' rate and window.
 */
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

/// The value of a CSV cell as a number (0 when empty).
double
Num(const std::vector<std::string>& row, int col)
{
    return col >= 0 && col < static_cast<int>(row.size()) && !row[col].empty()
               ? std::strtod(row[col].c_str(), nullptr)
               : 0.0;
}

/// The text of a CSV cell ("" when missing).
std::string
Cell(const std::vector<std::string>& row, int col)
{
    return col >= 0 && col < static_cast<int>(row.size()) ? row[col] : std::string();
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
    Csv c;
    if (!ReadCsv(dir + "/queues.csv", c))
    {
        return false;
    }
    const int cT = c.Col("time_ns");
    const int cSw = c.Col("switch");
    const int cNode = c.Col("node");
    const int cPort = c.Col("port");
    const int cPrio = c.Col("priority");
    const int cBytes = c.Col("bytes");
    using Key = std::tuple<uint64_t, uint64_t, uint64_t>; // switch, port, priority
    std::map<Key, double> maxOf;
    std::map<Key, std::string> nodeOf;
    double tEnd = 0;

    // each row's numbers, parsed once (the figure selects from them once per queue shown)
    struct Sample
    {
        Key k;        //!< switch, port, priority
        double t;     //!< time_ns
        double bytes; //!< bytes
    };

    std::vector<Sample> samples;
    samples.reserve(c.rows.size());
    for (const auto& r : c.rows)
    {
        const Key k{static_cast<uint64_t>(Num(r, cSw)),
                    static_cast<uint64_t>(Num(r, cPort)),
                    static_cast<uint64_t>(Num(r, cPrio))};
        samples.push_back({k, Num(r, cT), Num(r, cBytes)});
        double& m = maxOf[k];
        m = std::max(m, samples.back().bytes);
        nodeOf[k] = Cell(r, cNode);
        tEnd = std::max(tEnd, samples.back().t);
    }
    std::vector<std::pair<double, Key>> ranked;
    for (const auto& [k, m] : maxOf)
    {
        if (m > 0)
        {
            ranked.emplace_back(m, k);
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
    std::ostringstream dat;
    dat << "# the " << ranked.size()
        << " queues with the largest sampled depth, one block each: time_" << t.name
        << " queue_KB (KB = "
           "1000 B)\n";
    std::vector<std::string> titles;
    for (const auto& [m, k] : ranked)
    {
        titles.push_back("switch " + std::to_string(std::get<0>(k)) + " (node " + nodeOf[k] +
                         ") port " + std::to_string(std::get<1>(k)) + " priority " +
                         std::to_string(std::get<2>(k)) + ": max " + Fmt("%.1f", m / 1e3) + " KB");
        dat << "# " << titles.back() << "\n";
        for (const Sample& r : samples)
        {
            if (r.k == k)
            {
                dat << Fmt("%.7g", r.t / t.div) << ' ' << Fmt("%.3f", r.bytes / 1e3) << '\n';
            }
        }
        dat << "\n\n";
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
    Csv c;
    if (!ReadCsv(dir + "/pfc.csv", c))
    {
        return false;
    }
    const int cT = c.Col("time_ns");
    const int cSw = c.Col("switch");
    const int cPort = c.Col("port");
    const int cPrio = c.Col("priority");
    const int cType = c.Col("type");
    using Key = std::tuple<uint64_t, uint64_t, uint64_t>;
    std::map<Key, std::vector<std::pair<double, double>>> intervals;
    std::map<Key, double> openAt;
    double tEnd = 0;
    uint64_t pauses = 0;
    Csv q;
    if (ReadCsv(dir + "/queues.csv", q))
    {
        for (const auto& r : q.rows)
        {
            tEnd = std::max(tEnd, Num(r, q.Col("time_ns")));
        }
    }
    for (const auto& r : c.rows)
    {
        const Key k{static_cast<uint64_t>(Num(r, cSw)),
                    static_cast<uint64_t>(Num(r, cPort)),
                    static_cast<uint64_t>(Num(r, cPrio))};
        const double t = Num(r, cT);
        tEnd = std::max(tEnd, t);
        if (Cell(r, cType) == "pause")
        {
            ++pauses;
            openAt.emplace(k, t); // a refresh of an open pause keeps its start
        }
        else if (openAt.count(k))
        {
            intervals[k].emplace_back(openAt[k], t);
            openAt.erase(k);
        }
    }
    for (const auto& [k, t] : openAt)
    {
        intervals[k].emplace_back(t, tEnd); // still paused at the last sample
    }
    if (intervals.empty())
    {
        NoData(dir, "pfc", "PFC pause intervals (no pause frame was sent)");
        return true;
    }
    // lanes: the ports paused longest first
    std::vector<std::pair<double, Key>> ranked;
    for (const auto& [k, iv] : intervals)
    {
        double total = 0;
        for (const auto& [a, b] : iv)
        {
            total += b - a;
        }
        ranked.emplace_back(total, k);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        return x.first > y.first;
    });
    const std::size_t shown = std::min<std::size_t>(ranked.size(), 24);
    const Axis t = AxisFor(tEnd);
    std::ostringstream dat;
    std::ostringstream ytics;
    dat << "# start_" << t.name << " lane end_" << t.name
        << ": a switch ingress queue from a pause frame it sent to its "
           "resume (the "
        << shown << " longest-paused of " << ranked.size() << ")\n";
    for (std::size_t lane = 0; lane < shown; ++lane)
    {
        const Key& k = ranked[lane].second;
        const std::string label = "switch " + std::to_string(std::get<0>(k)) + " port " +
                                  std::to_string(std::get<1>(k)) + " prio " +
                                  std::to_string(std::get<2>(k));
        ytics << (lane ? ", " : "") << Quote(label) << " " << lane;
        dat << "# " << label << ": " << Fmt("%.3f", ranked[lane].first / 1e3) << " us paused\n";
        for (const auto& [a, b] : intervals[k])
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
    Csv c;
    if (!ReadCsv(dir + "/link-tiers.csv", c))
    {
        return false;
    }
    const int cStart = c.Col("start_ns");
    const int cEnd = c.Col("end_ns");
    const int cTier = c.Col("tier");
    const int cDir = c.Col("direction");
    const int cUtil = c.Col("utilization");
    std::map<std::pair<uint64_t, std::string>, std::vector<std::vector<std::string>>> series;
    double tEnd = 0;
    for (const auto& r : c.rows)
    {
        series[{static_cast<uint64_t>(Num(r, cTier)), Cell(r, cDir)}].push_back(r);
        tEnd = std::max(tEnd, Num(r, cEnd));
    }
    if (series.empty())
    {
        NoData(dir, "utilization", "Link utilization per tier");
        return true;
    }
    const Axis t = AxisFor(tEnd);
    std::ostringstream dat;
    dat << "# one block per tier and direction: time_" << t.name
        << " utilization_percent (each interval's "
           "start and end; 0 between sampled intervals: no frame sent)\n";
    std::vector<std::string> titles;
    for (const auto& [key, rows] : series)
    {
        titles.push_back(TierName(key.first) + " " + key.second);
        dat << "# " << titles.back() << "\n";
        double last = -1;
        for (const auto& r : rows)
        {
            const double a = Num(r, cStart) / t.div;
            const double b = Num(r, cEnd) / t.div;
            const double u = 100 * Num(r, cUtil);
            if (last >= 0 && a > last)
            {
                dat << Fmt("%.7g", last) << " 0\n" << Fmt("%.7g", a) << " 0\n";
            }
            dat << Fmt("%.7g", a) << ' ' << Fmt("%.4f", u) << '\n'
                << Fmt("%.7g", b) << ' ' << Fmt("%.4f", u) << '\n';
            last = b;
        }
        dat << "\n\n";
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
    Csv c;
    if (!ReadCsv(dir + "/qp-trace.csv", c) || c.rows.empty())
    {
        return false;
    }
    const int cT = c.Col("time_ns");
    const int cRate = c.Col("rate_bps");
    const int cWin = c.Col("window_bytes");
    const int cCnp = c.Col("cnps");
    std::vector<std::string> order;
    std::map<std::string, std::ostringstream> series;
    std::map<std::string, std::string> cnpsSoFar;
    std::ostringstream cnpPoints; // the rate right after each CNP
    double top = 0;
    bool windows = false;
    for (const auto& r : c.rows)
    {
        windows = windows || !Cell(r, cWin).empty();
    }
    for (const auto& r : c.rows)
    {
        const std::string key =
            Cell(r, c.Col("src")) + "->" + Cell(r, c.Col("dst")) + " QP " + Cell(r, c.Col("qpn"));
        if (!series.count(key))
        {
            order.push_back(key);
        }
        const std::string point =
            Fmt("%.3f", Num(r, cT) / 1e3) + ' ' + Fmt("%.3f", Num(r, cRate) / 1e9);
        series[key] << point;
        if (windows)
        {
            series[key] << ' ' << (Cell(r, cWin).empty() ? "NaN" : Fmt("%.3f", Num(r, cWin) / 1e3));
        }
        series[key] << '\n';
        if (cnpsSoFar.count(key) && cnpsSoFar[key] != Cell(r, cCnp))
        {
            cnpPoints << point << '\n';
        }
        cnpsSoFar[key] = Cell(r, cCnp);
        top = std::max(top, Num(r, cRate) / 1e9);
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
