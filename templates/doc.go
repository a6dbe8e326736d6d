// Package templates holds the site's templ components (*.templ, with their generated *_templ.go committed): pure
// functions from the view data of view.go to HTML, with no I/O. The build renders every page through them.
package templates
