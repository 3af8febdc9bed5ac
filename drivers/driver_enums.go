package drivers

import "time"

// The allowed values of each enumerated field, in documentation order.
var (
	parameterTypes    = []string{string(TypeString), string(TypeText), string(TypeInteger), string(TypeNumber), string(TypeBoolean), string(TypeEnum), string(TypeSecret)}
	hooks             = []string{string(HookPreInstall), string(HookPostInstall), string(HookPreUpgrade), string(HookPostUpgrade), string(HookPreDelete), string(HookPostDelete), string(HookManual)}
	modes             = []string{string(ModeBlocking), string(ModeBestEffort)}
	protocols         = []string{string(ProtocolTCP), string(ProtocolUDP)}
	selectorOperators = []string{string(OperatorIn), string(OperatorNotIn), string(OperatorExists), string(OperatorDoesNotExist)}
)

// enum is implemented by the string types whose values are a fixed list.
type enum interface {
	allowed() []string
}

func (ParameterType) allowed() []string    { return parameterTypes }
func (Hook) allowed() []string             { return hooks }
func (Mode) allowed() []string             { return modes }
func (Protocol) allowed() []string         { return protocols }
func (SelectorOperator) allowed() []string { return selectorOperators }

// DefaultTimeout is how long an action may run when it declares no timeout.
const DefaultTimeout = 10 * time.Minute

// MaxTimeout is the longest timeout an action may declare.
const MaxTimeout = 24 * time.Hour

// TimeoutDuration returns the action's timeout, DefaultTimeout when unset.
func (a *Action) TimeoutDuration() time.Duration {
	t, err := time.ParseDuration(a.Timeout)
	if err != nil || t <= 0 {
		return DefaultTimeout
	}
	return t
}

// EffectiveMode returns the action's mode, blocking when unset.
func (a *Action) EffectiveMode() Mode {
	if a.Mode == "" {
		return ModeBlocking
	}
	return a.Mode
}

// EffectiveProtocol returns the service's protocol, TCP when unset.
func (s *Service) EffectiveProtocol() Protocol {
	if s.Protocol == "" {
		return ProtocolTCP
	}
	return s.Protocol
}
