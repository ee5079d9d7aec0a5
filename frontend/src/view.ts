// What the router asks of a screen: paint yourself (again, e.g. after a language change)
// and let go of sockets and timers when the player leaves.
export interface View {
  render(): void;
  destroy?(): void;
}
