#include "metrics.h"

#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "lifecycle_log.h"

namespace tickwire::host {
namespace {

// Fine below a millisecond, where a healthy tick lives, and around the
// tick budget, where the alert is; the budget itself is added as a bound
// so "ticks over budget" is one bucket subtraction.
prometheus::Histogram::BucketBoundaries tick_buckets(std::uint32_t tick_rate) {
  prometheus::Histogram::BucketBoundaries b = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004,
                                               0.008,   0.012,  0.02,    0.033,  0.05,  0.1,   0.25};
  b.push_back(1.0 / static_cast<double>(tick_rate));
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return b;
}

// Adds what a total gained; totals only grow, but a counter must never be
// asked to go down, so a smaller value is ignored.
void advance(prometheus::Counter* counter, std::uint64_t total, std::uint64_t before) {
  if (total > before) counter->Increment(static_cast<double>(total - before));
}

}  // namespace

Metrics::Metrics(const StartInfo& info) : registry_(std::make_shared<prometheus::Registry>()) {
  const std::uint32_t tick_rate = info.tick_rate;
  auto& r = *registry_;
  auto counter = [&r](const std::string& name, const std::string& help) -> prometheus::Counter* {
    return &prometheus::BuildCounter().Name(name).Help(help).Register(r).Add({});
  };
  auto gauge = [&r](const std::string& name, const std::string& help) -> prometheus::Gauge* {
    return &prometheus::BuildGauge().Name(name).Help(help).Register(r).Add({});
  };

  prometheus::BuildGauge()
      .Name("tickwire_build_info")
      .Help("Always 1; the labels say which build is running")
      .Register(r)
      .Add({{"version", info.version}, {"game", info.game}, {"game_version", info.game_version}})
      .Set(1);
  gauge("tickwire_tick_budget_seconds", "Time between ticks (1 / tick rate); tick work must fit in it")
      ->Set(1.0 / static_cast<double>(tick_rate));
  gauge("tickwire_max_clients", "Most clients allowed at once")->Set(static_cast<double>(info.max_clients));

  auto& histograms = prometheus::BuildHistogram()
                         .Name("tickwire_tick_duration_seconds")
                         .Help("Work time of each tick (simulate, capture, send)")
                         .Register(r);
  tick_duration_ = &histograms.Add({}, tick_buckets(tick_rate));
  tick_lateness_ = &prometheus::BuildHistogram()
                        .Name("tickwire_tick_lateness_seconds")
                        .Help("How long after its due time each tick started")
                        .Register(r)
                        .Add({}, tick_buckets(tick_rate));

  clients_ = gauge("tickwire_clients", "Clients connected now");
  tick_ = gauge("tickwire_tick", "The last tick run");
  resident_ = gauge("tickwire_resident_memory_bytes", "Resident set size of the process");
  ticks_ = counter("tickwire_ticks_total", "Ticks run");
  ticks_overrun_ = counter("tickwire_ticks_overrun_total", "Ticks whose work ended after the next tick was due");
  ticks_skipped_ = counter("tickwire_ticks_skipped_total", "Due ticks dropped after a stall");
  bytes_in_ = counter("tickwire_bytes_in_total", "Payload bytes received from clients");
  bytes_out_ = counter("tickwire_bytes_out_total", "Payload bytes sent to clients");
  packets_in_ = counter("tickwire_packets_in_total", "Packets received from clients");
  packets_out_ = counter("tickwire_packets_out_total", "Packets sent to clients");
  snapshots_ = counter("tickwire_snapshots_total", "Snapshots sent");
  late_inputs_ = counter("tickwire_late_inputs_total", "Inputs that arrived after their tick had run");
  missing_inputs_ = counter("tickwire_missing_inputs_total", "Client ticks run without that client's input");
  rejected_inputs_ = counter("tickwire_rejected_inputs_total", "Inputs refused as invalid or too far ahead");
  reported_mispredictions_ = counter("tickwire_client_reported_mispredictions_total",
                                     "Snapshots that corrected a client's prediction, as the clients report them");
  {
    auto& views = prometheus::BuildCounter()
                      .Name("tickwire_view_times_total")
                      .Help(
                          "Lag compensation: inputs' view times used as claimed, replaced by the server's estimate "
                          "(missing or beyond the tolerance), or clamped into the rewind window")
                      .Register(r);
    view_as_claimed_ = &views.Add({{"decision", "as_claimed"}});
    view_replaced_ = &views.Add({{"decision", "replaced"}});
    view_clamped_ = &views.Add({{"decision", "clamped"}});
  }

  // Every label value exists from the start at 0, so rate() and alerts see
  // a series before the first event rather than a gap.
  auto& bad = prometheus::BuildCounter()
                  .Name("tickwire_bad_packets_total")
                  .Help("Packets dropped as undecodable or unexpected, by reason")
                  .Register(r);
  for (std::size_t i = 0; i < kErrorCodes; ++i) {
    bad_packets_[i] = &bad.Add({{"reason", to_string(static_cast<ErrorCode>(i))}});
  }
  auto& events = prometheus::BuildCounter()
                     .Name("tickwire_connection_events_total")
                     .Help("Clients connected, denied and disconnected, by reason")
                     .Register(r);
  connected_ = &events.Add({{"event", "connected"}, {"reason", "none"}});
  for (std::size_t i = 0; i < kReasons; ++i) {
    const char* reason = reason_token(static_cast<transport::DisconnectReason>(i));
    denied_[i] = &events.Add({{"event", "denied"}, {"reason", reason}});
    disconnected_[i] = &events.Add({{"event", "disconnected"}, {"reason", reason}});
  }
  if (info.agones) add_agones();
}

void Metrics::add_agones() {
  auto& r = *registry_;
  agones_allocations_ = &prometheus::BuildCounter()
                             .Name("tickwire_agones_allocations_total")
                             .Help("Times Agones reported this game server Allocated")
                             .Register(r)
                             .Add({});
  auto& failures = prometheus::BuildCounter()
                       .Name("tickwire_agones_failures_total")
                       .Help("Requests to the Agones sidecar that failed (each is retried), by kind")
                       .Register(r);
  for (std::size_t i = 0; i < kAgonesCalls; ++i) {
    agones_failures_[i] = &failures.Add({{"call", agones_call_label(static_cast<AgonesCall>(i))}});
  }
}

void Metrics::update_agones(const AgonesAgent& agent) {
  if (agones_allocations_ == nullptr) return;
  const std::uint64_t allocations = agent.allocations();
  advance(agones_allocations_, allocations, last_allocations_);
  last_allocations_ = allocations;
  for (std::size_t i = 0; i < kAgonesCalls; ++i) {
    const std::uint64_t total = agent.failures().of(static_cast<AgonesCall>(i));
    advance(agones_failures_[i], total, last_failures_[i]);
    last_failures_[i] = total;
  }
}

Metrics::~Metrics() = default;

void Metrics::observe_ticks(const std::vector<server::TickTiming>& timings) {
  for (const auto& t : timings) {
    tick_duration_->Observe(t.duration.seconds_f());
    tick_lateness_->Observe(std::max(t.lateness.seconds_f(), 0.0));
  }
}

void Metrics::update(const server::ServerStats& s) {
  const server::ServerStats& p = last_;
  clients_->Set(static_cast<double>(s.clients));
  tick_->Set(static_cast<double>(s.tick.value()));
  advance(ticks_, s.ticks_run, p.ticks_run);
  advance(ticks_overrun_, s.ticks_overrun, p.ticks_overrun);
  advance(ticks_skipped_, s.ticks_skipped, p.ticks_skipped);
  advance(bytes_in_, s.bytes_in, p.bytes_in);
  advance(bytes_out_, s.bytes_out, p.bytes_out);
  advance(packets_in_, s.packets_in, p.packets_in);
  advance(packets_out_, s.packets_out, p.packets_out);
  advance(snapshots_, s.snapshots, p.snapshots);
  advance(late_inputs_, s.late_inputs, p.late_inputs);
  advance(missing_inputs_, s.missing_inputs, p.missing_inputs);
  advance(rejected_inputs_, s.rejected_inputs, p.rejected_inputs);
  advance(reported_mispredictions_, s.reported_mispredictions, p.reported_mispredictions);
  advance(view_as_claimed_, s.rewind.as_claimed, p.rewind.as_claimed);
  advance(view_replaced_, s.rewind.replaced, p.rewind.replaced);
  advance(view_clamped_, s.rewind.clamped, p.rewind.clamped);
  for (std::size_t i = 0; i < kErrorCodes; ++i) {
    advance(bad_packets_[i], s.bad_packets_by_reason[i], p.bad_packets_by_reason[i]);
  }
  last_ = s;
}

void Metrics::count_event(const server::ServerEvent& e) {
  const auto reason = std::min(static_cast<std::size_t>(e.reason), kReasons - 1);
  switch (e.type) {
    case server::ServerEvent::Type::kClientConnected: connected_->Increment(); break;
    case server::ServerEvent::Type::kClientDenied: denied_[reason]->Increment(); break;
    case server::ServerEvent::Type::kClientDisconnected: disconnected_[reason]->Increment(); break;
  }
}

void Metrics::set_resident_bytes(std::uint64_t bytes) { resident_->Set(static_cast<double>(bytes)); }

std::string Metrics::render() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

Result<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::start(const std::string& bind, std::uint16_t port,
                                                                const std::shared_ptr<prometheus::Registry>& registry) {
  // civetweb takes IPv6 addresses in brackets.
  const std::string host = bind.find(':') != std::string::npos ? "[" + bind + "]" : bind;
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    exposer = std::make_unique<prometheus::Exposer>(host + ":" + std::to_string(port), 2);
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kIo, e.what());
  }
  exposer->RegisterCollectable(registry);
  const auto ports = exposer->GetListeningPorts();
  const auto actual = ports.empty() ? port : static_cast<std::uint16_t>(ports.front());
  return std::unique_ptr<MetricsEndpoint>(new MetricsEndpoint(std::move(exposer), bind, actual));
}

MetricsEndpoint::MetricsEndpoint(std::unique_ptr<prometheus::Exposer> exposer, std::string bind, std::uint16_t port)
    : exposer_(std::move(exposer)), bind_(std::move(bind)), port_(port) {}

MetricsEndpoint::~MetricsEndpoint() = default;

std::string MetricsEndpoint::url() const {
  const std::string host = bind_.find(':') != std::string::npos ? "[" + bind_ + "]" : bind_;
  return "http://" + host + ":" + std::to_string(port_) + "/metrics";
}

}  // namespace tickwire::host
