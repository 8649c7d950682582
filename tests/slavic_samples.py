"""Hand-written sentences of the Slavic languages learnsim detects (and of their neighbours), for
the tests of detect_language (tests/text/test_czech.py, test_bulgarian.py, test_slavic_stop_words.py):
the same five statements in each, so that no language wins by its topic."""

CZECH = ["Studenti šli ráno do školy a četli své knihy v knihovně.",
         "Praha je hlavní město České republiky a leží na řece Vltavě.",
         "Lékaři v nemocnici pracují celou noc, protože mají mnoho pacientů.",
         "Včera jsme byli na horách, kde bylo velmi chladno a foukal silný vítr.",
         "Ten nový zákon, který vláda schválila, se týká daní a důchodů."]
SLOVAK = ["Študenti išli ráno do školy a čítali svoje knihy v knižnici.",
          "Bratislava je hlavné mesto Slovenska a leží na rieke Dunaj.",
          "Lekári v nemocnici pracujú celú noc, pretože majú veľa pacientov.",
          "Včera sme boli na horách, kde bolo veľmi chladno a fúkal silný vietor.",
          "Ten nový zákon, ktorý vláda schválila, sa týka daní a dôchodkov."]
POLISH = ["Studenci poszli rano do szkoły i czytali swoje książki w bibliotece.",
          "Warszawa jest stolicą Polski i leży nad Wisłą.",
          "Lekarze w szpitalu pracują całą noc, ponieważ mają wielu pacjentów.",
          "Wczoraj byliśmy w górach, gdzie było bardzo zimno i wiał silny wiatr.",
          "Ta nowa ustawa, którą rząd przyjął, dotyczy podatków i emerytur."]
BULGARIAN = ["Студентите отидоха рано на училище и четоха своите книги в библиотеката.",
             "София е столицата на България и се намира в подножието на Витоша.",
             "Лекарите в болницата работят цяла нощ, защото имат много пациенти.",
             "Вчера бяхме в планината, където беше много студено и духаше силен вятър.",
             "Новият закон, който правителството прие, се отнася до данъците и пенсиите."]
UKRAINIAN = ["Студенти пішли вранці до школи і читали свої книжки в бібліотеці.",
             "Київ є столицею України і розташований на річці Дніпро.",
             "Лікарі в лікарні працюють цілу ніч, тому що мають багато пацієнтів.",
             "Вчора ми були в горах, де було дуже холодно і дув сильний вітер.",
             "Новий закон, який ухвалив уряд, стосується податків і пенсій."]
RUSSIAN = ["Студенты пошли утром в школу и читали свои книги в библиотеке.",
           "Москва является столицей России и находится на реке Москве.",
           "Врачи в больнице работают всю ночь, потому что у них много пациентов.",
           "Вчера мы были в горах, где было очень холодно и дул сильный ветер.",
           "Новый закон, который приняло правительство, касается налогов и пенсий."]
# the stop lists added with them (Czech's, Bulgarian's, Ukrainian's, Polish's, Slovak's)
NEW = ("czech", "bulgarian", "ukrainian", "polish", "slovak")
# the languages detected before these lists shipped: each must stay what it was
BEFORE = {
    "english": ["The students went to school in the morning and read their books in the library.",
                "The doctors in the hospital work all night because they have many patients."],
    "danish": ["Studerende gik i skole om morgenen og læste deres bøger på biblioteket.",
               "Lægerne på hospitalet arbejder hele natten, fordi de har mange patienter."],
    "dutch": ["De studenten gingen 's ochtends naar school en lazen hun boeken in de bibliotheek.",
              "De artsen in het ziekenhuis werken de hele nacht, omdat ze veel patiënten hebben."],
    "finnish": ["Opiskelijat menivät aamulla kouluun ja lukivat kirjojaan kirjastossa.",
                "Sairaalan lääkärit tekevät töitä koko yön, koska heillä on paljon potilaita."],
    "french": ["Les étudiants sont allés à l'école le matin et ont lu leurs livres à la bibliothèque.",
               "Les médecins de l'hôpital travaillent toute la nuit parce qu'ils ont beaucoup de patients."],
    "german": ["Die Studenten gingen morgens zur Schule und lasen ihre Bücher in der Bibliothek.",
               "Die Ärzte im Krankenhaus arbeiten die ganze Nacht, weil sie viele Patienten haben."],
    "hungarian": ["A diákok reggel iskolába mentek, és a könyvtárban olvasták a könyveiket.",
                  "A kórház orvosai egész éjjel dolgoznak, mert sok betegük van."],
    "italian": ["Gli studenti sono andati a scuola la mattina e hanno letto i loro libri in biblioteca.",
                "I medici dell'ospedale lavorano tutta la notte perché hanno molti pazienti."],
    "norwegian": ["Studentene gikk på skolen om morgenen og leste bøkene sine på biblioteket.",
                  "Legene på sykehuset jobber hele natten fordi de har mange pasienter."],
    "portuguese": ["Os estudantes foram para a escola de manhã e leram os seus livros na biblioteca.",
                   "Os médicos do hospital trabalham a noite toda porque têm muitos pacientes."],
    "russian": RUSSIAN,
    "spanish": ["Los estudiantes fueron a la escuela por la mañana y leyeron sus libros en la biblioteca.",
                "Los médicos del hospital trabajan toda la noche porque tienen muchos pacientes."],
    "swedish": ["Studenterna gick till skolan på morgonen och läste sina böcker på biblioteket.",
                "Läkarna på sjukhuset arbetar hela natten eftersom de har många patienter."],
}
