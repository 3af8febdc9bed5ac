package runner

// NamespaceKept exposes namespaceKept to its table test.
var NamespaceKept = namespaceKept
