package permissions

func (s Set) Privileged() bool { return false }
