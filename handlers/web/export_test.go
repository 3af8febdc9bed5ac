package web

// OpenRedirects are the next values that leave the origin, for the sign-in
// page's test in package web_test.
var OpenRedirects = openRedirects
