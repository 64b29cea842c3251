# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# waf build of the ai-training module for ns-3 <= 3.35 (ns-3.36+ uses CMakeLists.txt).
# The lists below must equal the lists in CMakeLists.txt (ctest "wscript-lists-match").


def configure(conf):
    conf.env.append_value('CXXFLAGS', ['-std=c++17'])


def build(bld):
    module = bld.create_ns3_module('ai-training', ['core', 'network', 'internet'])
    module.source = [
        'model/aeth-header.cc',
        'model/bth-header.cc',
        'model/communicator.cc',
        'model/training-workload.cc',
        'model/transformer-model.cc',
        'model/training-job.cc',
        'model/training-worker.cc',
        'model/deth-header.cc',
        'model/flat-heap-scheduler.cc',
        'model/int-tag.cc',
        'model/log-histogram.cc',
        'model/pfc-header.cc',
        'model/rdma-ack-tag.cc',
        'model/rdma-nic.cc',
        'model/rdma-queue-pair.cc',
        'model/reth-header.cc',
        'model/roce-channel.cc',
        'model/roce-congestion-ops.cc',
        'model/roce-dcqcn.cc',
        'model/roce-dctcp.cc',
        'model/roce-hpcc.cc',
        'model/roce-icrc-trailer.cc',
        'model/roce-line-rate.cc',
        'model/roce-net-device.cc',
        'model/roce-switch.cc',
        'model/roce-timely.cc',
        'model/roce-ud-sink.cc',
        'model/roce-ud-source.cc',
        'model/switch-mmu.cc',
        'model/vlan-header.cc',
        'model/workload-reader.cc',
        'helper/fat-tree-helper.cc',
        'helper/leaf-spine-helper.cc',
        'helper/network-stats-helper.cc',
        'helper/rail-optimized-helper.cc',
        'helper/rdma-helper.cc',
        'helper/training-job-helper.cc',
        'helper/roce-link-helper.cc',
        'helper/roce-topology-helper.cc',
        'helper/roce-ud-helper.cc',
        'helper/two-tier-topology-helper.cc',
    ]

    module_test = bld.create_ns3_module_test_library('ai-training')
    module_test.source = [
        'test/bad-input-test.cc',
        'test/cc-dcqcn-test.cc',
        'test/cc-dctcp-test.cc',
        'test/cc-hpcc-test.cc',
        'test/cc-timely-test.cc',
        'test/cc-convergence-test.cc',
        'test/communicator-test.cc',
        'test/flat-heap-scheduler-test.cc',
        'test/halving-doubling-test.cc',
        'test/training-job-test.cc',
        'test/training-workload-test.cc',
        'test/transformer-model-test.cc',
        'test/header-test.cc',
        'test/network-stats-test.cc',
        'test/pcap-tshark-test.cc',
        'test/pfc-test.cc',
        'test/rdma-config-test.cc',
        'test/rdma-nic-test.cc',
        'test/rdma-reorder-test.cc',
        'test/rdma-timer-test.cc',
        'test/ring-fifo-test.cc',
        'test/roce-link-test.cc',
        'test/study-bad-input-test.cc',
        'test/study-test.cc',
        'test/switch-test.cc',
        'test/topology-test.cc',
        'test/workload-reader-test.cc',
        'test/ai-training-test-suite.cc',
    ]
    module_test.uselib = 'GTEST'
    module_test.env.append_value('LIB', ['gtest', 'pthread'])
    module_test.env.append_value('DEFINES', ['AIT_SOURCE_DIR="%s"' % bld.path.abspath(),
                                             'AIT_TSHARK="/usr/bin/tshark"'])

    headers = bld(features='ns3header')
    headers.module = 'ai-training'
    headers.source = [
        'model/aeth-header.h',
        'model/bth-header.h',
        'model/communicator.h',
        'model/training-workload.h',
        'model/transformer-model.h',
        'model/training-job.h',
        'model/training-worker.h',
        'model/deth-header.h',
        'model/flat-heap-scheduler.h',
        'model/int-tag.h',
        'model/log-histogram.h',
        'model/pfc-header.h',
        'model/rdma-ack-tag.h',
        'model/rdma-nic.h',
        'model/rdma-queue-pair.h',
        'model/reth-header.h',
        'model/roce-channel.h',
        'model/roce-congestion-ops.h',
        'model/roce-dcqcn.h',
        'model/roce-dctcp.h',
        'model/roce-hpcc.h',
        'model/roce-icrc-trailer.h',
        'model/roce-line-rate.h',
        'model/reusable-event.h',
        'model/ring-fifo.h',
        'model/roce-net-device.h',
        'model/roce-switch.h',
        'model/roce-timely.h',
        'model/roce-ud-sink.h',
        'model/roce-ud-source.h',
        'model/switch-mmu.h',
        'model/vlan-header.h',
        'model/workload-reader.h',
        'helper/fat-tree-helper.h',
        'helper/leaf-spine-helper.h',
        'helper/network-stats-helper.h',
        'helper/rail-optimized-helper.h',
        'helper/rdma-helper.h',
        'helper/training-job-helper.h',
        'helper/roce-link-helper.h',
        'helper/roce-topology-helper.h',
        'helper/roce-ud-helper.h',
        'helper/two-tier-topology-helper.h',
    ]

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
