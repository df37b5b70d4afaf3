#include "tickwire/transport/sim_network.h"

#include "sim_internal.h"

namespace tickwire::transport {

// ---------------------------------------------------------------------------
// SimNetwork

SimNetwork::SimNetwork(std::uint64_t seed) : state_(std::make_unique<State>(seed)) {}

SimNetwork::~SimNetwork() {
  for (auto& [address, slot] : state_->endpoints) slot.endpoint->detach();
}

std::unique_ptr<Transport> SimNetwork::create_endpoint(const Address& address, SimEndpointConfig config) {
  if (state_->endpoints.contains(address)) {
    throw std::invalid_argument("SimNetwork: address taken: " + address.to_string());
  }
  auto endpoint = std::make_unique<SimEndpoint>(*this, address, std::move(config));
  state_->endpoints[address].endpoint = endpoint.get();
  return endpoint;
}

void SimNetwork::set_link(const Address& from, const Address& to, const LinkConditions& conditions) {
  if (auto valid = conditions.validate(); !valid) throw std::invalid_argument("SimNetwork: " + valid.error().detail);
  state_->links[{from, to}].conditions = conditions;
}

void SimNetwork::set_default_link(const LinkConditions& conditions) {
  if (auto valid = conditions.validate(); !valid) throw std::invalid_argument("SimNetwork: " + valid.error().detail);
  state_->default_link = conditions;
}

const LinkConditions& SimNetwork::link(const Address& from, const Address& to) const {
  const auto it = state_->links.find({from, to});
  return it == state_->links.end() ? state_->default_link : state_->conditions(it->second);
}

void SimNetwork::schedule(Time at, std::function<void(SimNetwork&)> change) {
  // multimap inserts equal keys last, which keeps scheduling order for ties.
  state_->scheduled.emplace(at, std::move(change));
}

void SimNetwork::sever(const Address& a, const Address& b) { state_->severed.insert(State::unordered(a, b)); }
void SimNetwork::restore(const Address& a, const Address& b) { state_->severed.erase(State::unordered(a, b)); }
bool SimNetwork::is_severed(const Address& a, const Address& b) const {
  return state_->severed.contains(State::unordered(a, b));
}

SimLinkStats SimNetwork::stats(const Address& from, const Address& to) const {
  const auto it = state_->links.find({from, to});
  return it == state_->links.end() ? SimLinkStats{} : it->second.stats();
}

void SimNetwork::set_trace(std::vector<TraceEntry>* trace) { state_->trace = trace; }

void SimNetwork::unregister_endpoint(const Address& address) {
  const auto it = state_->endpoints.find(address);
  if (it == state_->endpoints.end()) return;
  for (const auto& [key, in_flight] : it->second.inbox)
    state_->links[{in_flight.datagram.from, address}].on_discarded();
  state_->endpoints.erase(it);
}

void SimNetwork::advance(Time now) {
  auto& scheduled = state_->scheduled;
  while (!scheduled.empty() && scheduled.begin()->first <= now) {
    // Taken out first: the change may schedule more.
    auto change = std::move(scheduled.begin()->second);
    scheduled.erase(scheduled.begin());
    change(*this);
  }
}

void SimNetwork::transmit(const Address& from, const Address& to, std::vector<std::uint8_t> bytes, Time now) {
  State& s = *state_;
  SimLink& link = s.links[{from, to}];
  const std::size_t size = bytes.size();
  const auto slot = s.endpoints.find(to);
  LinkVerdict verdict;
  verdict.deliver = now;
  if (s.severed.contains(State::unordered(from, to))) {
    verdict.fate = SimFate::kSevered;
    link.count_drop(verdict.fate, size);
  } else if (slot == s.endpoints.end()) {
    verdict.fate = SimFate::kUnreachable;
    link.count_drop(verdict.fate, size);
  } else {
    verdict = link.admit(s.conditions(link), s.rng, now, size);
  }

  const bool delivered = verdict.fate == SimFate::kDelivered;
  if (s.trace != nullptr) {
    s.trace->push_back(TraceEntry{now, delivered ? std::optional<Time>(verdict.deliver) : std::nullopt, from, to, size,
                                  verdict.fate, false, verdict.reordered});
    if (verdict.copy) s.trace->push_back(TraceEntry{now, *verdict.copy, from, to, size, verdict.fate, true, false});
  }
  if (!delivered) return;
  auto& inbox = slot->second.inbox;
  const std::uint64_t order = s.next_order++;
  if (verdict.copy)
    inbox.emplace(std::pair{*verdict.copy, s.next_order++}, State::InFlight{now, Datagram{from, bytes}});
  inbox.emplace(std::pair{verdict.deliver, order}, State::InFlight{now, Datagram{from, std::move(bytes)}});
}

std::optional<SimNetwork::Datagram> SimNetwork::take_due(const Address& to, Time now) {
  const auto slot = state_->endpoints.find(to);
  if (slot == state_->endpoints.end()) return std::nullopt;
  auto& inbox = slot->second.inbox;
  if (inbox.empty() || inbox.begin()->first.first > now) return std::nullopt;
  const Time deliver = inbox.begin()->first.first;
  State::InFlight in_flight = std::move(inbox.begin()->second);
  inbox.erase(inbox.begin());
  state_->links[{in_flight.datagram.from, to}].on_delivered(in_flight.sent, deliver, in_flight.datagram.bytes.size());
  return std::move(in_flight.datagram);
}

std::uint32_t SimNetwork::next_session() { return state_->next_session++; }

}  // namespace tickwire::transport
